/**
 * How the sandbox checks its options: the mock's options are read without making a throwaway mock, and the
 * command maps a `ConfigurationError` of `startSandbox` to exit code 2 with its message.
 */
import { ConfigurationError } from 'delivery-task-sdk';
import { createMockDeliveryService } from 'delivery-task-sdk/testing';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { sandboxCommand } from '../../src/cli/sandbox.js';
import { type SandboxOptions, startSandbox } from '../../src/sandbox/sandbox.js';
import { parseSandboxSeed } from '../../src/sandbox/seed.js';

vi.mock('delivery-task-sdk/testing', async (importOriginal) => {
  const actual = await importOriginal<typeof import('delivery-task-sdk/testing')>();
  return { ...actual, createMockDeliveryService: vi.fn(actual.createMockDeliveryService) };
});
vi.mock('../../src/sandbox/sandbox.js', async (importOriginal) => {
  const actual = await importOriginal<typeof import('../../src/sandbox/sandbox.js')>();
  return { ...actual, startSandbox: vi.fn(actual.startSandbox) };
});

afterEach(() => vi.clearAllMocks());

describe('the sandbox reads the mock options', () => {
  it('makes one mock, the one it serves', async () => {
    const sandbox = await startSandbox({ port: 0, account: { type: 'invoice' }, tasks: [{ id: 'seed-1' }] });
    try {
      expect(createMockDeliveryService).toHaveBeenCalledTimes(1);
      expect(createMockDeliveryService).toHaveBeenCalledWith(
        expect.objectContaining({ baseUrl: sandbox.baseUrl, account: { type: 'invoice' } }),
      );
    } finally {
      await sandbox.close();
    }
  });

  it('makes none for bad options, nor to check a seed document', async () => {
    await expect(startSandbox({ taskLimit: 0 })).rejects.toThrow(ConfigurationError);
    expect(parseSandboxSeed({ branches: ['North'], tasks: [{ id: 'a' }] })).toEqual({
      branches: ['North'],
      tasks: [{ id: 'a' }],
    });
    expect(createMockDeliveryService).not.toHaveBeenCalled();
  });
});

/** [options, option, message]: each bad option of the sandbox, its own or the mock's. */
const BAD_OPTIONS: ReadonlyArray<[unknown, string, string]> = [
  [null, 'options', 'Invalid options: expected an object, got null'],
  [{ port: 65_536 }, 'port', 'Invalid port: expected an integer from 0 to 65535, got 65536'],
  [{ host: ' ' }, 'host', 'Invalid host: expected a host name or address, got " "'],
  [
    { host: '0.0.0.0' },
    'host',
    'Invalid host: expected a loopback address (127.0.0.1, localhost, ::1), or a controlToken to guard the control endpoints beyond it, got "0.0.0.0"',
  ],
  [
    { controlToken: 'a token with spaces' },
    'controlToken',
    'Invalid controlToken: expected 16 to 1024 visible ASCII characters (no spaces), got a string of 19 characters',
  ],
  [
    { allowedHosts: 'sandbox' },
    'allowedHosts',
    'Invalid allowedHosts: expected an array of host names, got "sandbox"',
  ],
  [
    { allowedHosts: ['sandbox', 'sandbox:4010'] },
    'allowedHosts.1',
    'Invalid allowedHosts.1: expected a host name without a port, or "*" for any host, got "sandbox:4010"',
  ],
  [{ maxEventClients: 0 }, 'maxEventClients', 'Invalid maxEventClients: expected an integer ≥ 1, got 0'],
  [
    { maxEventBufferedBytes: 2.5 },
    'maxEventBufferedBytes',
    'Invalid maxEventBufferedBytes: expected an integer ≥ 1, got 2.5',
  ],
  [
    { autoAdvanceMs: 86_400_001 },
    'autoAdvanceMs',
    'Invalid autoAdvanceMs: expected an integer from 10 to 86400000, got 86400001',
  ],
  [{ maxBodyBytes: -1 }, 'maxBodyBytes', 'Invalid maxBodyBytes: expected an integer ≥ 1, got -1'],
  [
    { baseUrl: 'http://127.0.0.1:1' },
    'baseUrl',
    'Invalid baseUrl: expected a known option, got a string of 18 characters',
  ],
  [
    { autoAdvance: 100 },
    'autoAdvance',
    'Invalid autoAdvance: expected a known option (did you mean autoAdvanceMs?), got a number',
  ],
  [
    { account: { type: 'credit' } },
    'account.type',
    "Invalid account.type: expected 'wallet' or 'invoice', got \"credit\"",
  ],
  [{ recordLimit: 0 }, 'recordLimit', 'Invalid recordLimit: expected an integer ≥ 1, got 0'],
  [
    { tasks: [{ id: 'a' }, { id: 'a' }] },
    'tasks.1.id',
    'Invalid tasks.1.id: expected an id no other seed task has, got "a"',
  ],
];

describe('startSandbox options', () => {
  it.each(BAD_OPTIONS)('refuses %j as ConfigurationError naming %s', async (options, option, message) => {
    const started = startSandbox(options as SandboxOptions);
    await expect(started).rejects.toThrow(ConfigurationError);
    await expect(started).rejects.toThrow(expect.objectContaining({ option, message }));
    expect(createMockDeliveryService).not.toHaveBeenCalled();
  });
});

describe('delivery-task sandbox and the errors of startSandbox', () => {
  const run = async (): Promise<{ code: number; stderr: string }> => {
    let stderr = '';
    const code = await sandboxCommand(['--port', '0'], {
      stdout: () => undefined,
      stderr: (text) => {
        stderr += text;
      },
      env: {},
      signal: AbortSignal.abort(),
    });
    return { code, stderr };
  };

  it('exits 2 with the message of a ConfigurationError', async () => {
    vi.mocked(startSandbox).mockRejectedValueOnce(
      new ConfigurationError('port', 'Invalid port: expected an integer from 0 to 65535, got 70000'),
    );
    expect(await run()).toEqual({
      code: 2,
      stderr:
        'delivery-task sandbox: Invalid port: expected an integer from 0 to 65535, got 70000 (see delivery-task sandbox --help)\n',
    });
  });

  it('exits 1 naming the address when it cannot listen', async () => {
    vi.mocked(startSandbox).mockRejectedValueOnce(
      Object.assign(new Error('listen EADDRINUSE'), { code: 'EADDRINUSE' }),
    );
    expect(await run()).toEqual({
      code: 1,
      stderr:
        'delivery-task sandbox: cannot listen on 127.0.0.1:0 (EADDRINUSE): the port is in use (--port 0 picks a free one)\n',
    });
  });
});
