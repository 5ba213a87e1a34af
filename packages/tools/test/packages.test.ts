/**
 * The two tarballs as a merchant installs them: `npm pack` at the root packs the SDK alone (no CLI,
 * MCP, sandbox or dashboard code, no `bin`); `npm pack -w delivery-task-tools` packs the tools, which,
 * installed beside the SDK's tarball, start the sandbox (`npx delivery-task-tools sandbox`,
 * `npx delivery-task sandbox`) and the MCP server over stdio. Builds both packages first when needed,
 * and packs a copy of what packing reads, so the repository's own files stay as they are meanwhile (the
 * tarballs are the same: both ways unpacked, `diff -r` finds no difference).
 */
import { execFile } from 'node:child_process';
import {
  cpSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BUILD_TIMEOUT_MS, builtAfterSource, ensureBuilt } from '../../../test/support/build.js';
import { ROOT } from '../../../test/support/root.js';
import { killAllSandboxes, type SandboxProcess, startSandboxProcess } from './support/sandbox-process.js';

const run = promisify(execFile);
/** The test's Node first on PATH, so npm and npx run with it. */
const env = {
  ...process.env,
  NODE_OPTIONS: '',
  PATH: `${dirname(process.execPath)}${delimiter}${process.env.PATH ?? ''}`,
};
const INSTALL_TIMEOUT_MS = 300_000;

let work: string;
let project: string;
let sdkFiles: string[];
let sdkManifest: Record<string, unknown>;
/** The files of the repository that packing rewrites in the folder it packs, as the tests beside read them. */
const WATCHED = ['package.json', 'README.md', 'packages/tools/package.json', 'packages/tools/README.md'];
/** Each change the packing made to a {@link WATCHED} file of the repository, seen by a 5 ms poll. */
const changedWhilePacking: string[] = [];

/** Polls the {@link WATCHED} files every 5 ms until the returned function is called. */
function watchRepositoryFiles(): () => void {
  const read = () => WATCHED.map((file) => readFileSync(join(ROOT, file), 'utf8'));
  const before = read();
  const timer = setInterval(() => {
    read().forEach((text, index) => {
      const file = WATCHED[index] as string;
      if (text !== before[index] && !changedWhilePacking.includes(file)) changedWhilePacking.push(file);
    });
  }, 5);
  return () => clearInterval(timer);
}

/**
 * What packing reads of the repository, copied to `<work>/repository` (its `node_modules` linked): each
 * package's manifest, READMEs, changelog, licence and build, the guides the packages ship or copy
 * (`docs/*.md`), and the packing script. `npm pack` runs the packages' `prepack`, which rewrites their
 * manifest and README in the folder it packs for the time of the pack (scripts/pack-files.mjs): packed
 * from the repository itself, a test running beside this file would read a manifest without `scripts`
 * (`npm run docs:serve` refused, test/scripts/serve-docs.test.ts) or a README without its
 * repository-only sections.
 */
function stageRepository(): string {
  const stage = join(work, 'repository');
  const copy = (path: string) => cpSync(join(ROOT, path), join(stage, path), { recursive: true });
  for (const folder of ['.', 'packages/tools']) {
    for (const file of ['package.json', 'README.md', 'CHANGELOG.md', 'LICENSE', 'dist'])
      copy(join(folder, file));
  }
  for (const guide of readdirSync(join(ROOT, 'docs')).filter((name) => name.endsWith('.md'))) {
    copy(join('docs', guide));
  }
  copy('scripts/pack-files.mjs');
  symlinkSync(join(ROOT, 'node_modules'), join(stage, 'node_modules'), 'dir');
  return stage;
}

/** `npm pack --json` of the staged root (`[]`) or a workspace: the tarball's name and files. */
async function pack(
  stage: string,
  workspace: readonly string[],
): Promise<{ filename: string; files: string[] }> {
  const { stdout } = await run('npm', ['pack', ...workspace, '--json', '--pack-destination', work], {
    cwd: stage,
    env,
    maxBuffer: 64 * 1024 * 1024,
  });
  const [result] = JSON.parse(stdout) as { filename: string; files: { path: string }[] }[];
  if (result === undefined) throw new Error(`npm pack printed nothing: ${stdout}`);
  return {
    filename: result.filename.replace('@', '').replace('/', '-'),
    files: result.files.map((file) => file.path),
  };
}

beforeAll(
  async () => {
    await ensureBuilt(
      () => builtAfterSource('dist/index.js') && builtAfterSource('packages/tools/dist/cli-main.js'),
    );
    work = mkdtempSync(join(tmpdir(), 'delivery-task-packages-'));
    const stopWatching = watchRepositoryFiles();
    let sdk: Awaited<ReturnType<typeof pack>>;
    let tools: Awaited<ReturnType<typeof pack>>;
    try {
      const stage = stageRepository();
      sdk = await pack(stage, []);
      tools = await pack(stage, ['-w', 'delivery-task-tools']);
    } finally {
      stopWatching();
    }
    sdkFiles = sdk.files;
    project = join(work, 'project');
    mkdirSync(project);
    writeFileSync(
      join(project, 'package.json'),
      JSON.stringify({ name: 'merchant', private: true, type: 'module' }),
    );
    await run(
      'npm',
      [
        'install',
        '--no-audit',
        '--no-fund',
        '--prefer-offline',
        join(work, sdk.filename),
        join(work, tools.filename),
      ],
      { cwd: project, env, timeout: INSTALL_TIMEOUT_MS },
    );
    sdkManifest = JSON.parse(
      readFileSync(join(project, 'node_modules', 'delivery-task-sdk', 'package.json'), 'utf8'),
    ) as Record<string, unknown>;
  },
  BUILD_TIMEOUT_MS + INSTALL_TIMEOUT_MS + 60_000,
);

// Removing the installed project (thousands of files) took over 10 s on a loaded machine.
afterAll(async () => {
  await killAllSandboxes();
  if (work) rmSync(work, { recursive: true, force: true });
}, 60_000);

describe('packing', () => {
  it("leaves the repository's manifests and READMEs as they are while it packs, for the tests beside it", () => {
    // A test that runs `npm run <script>` or reads README.md at the root meanwhile would find a manifest
    // without `scripts` or a README without its repository-only sections.
    expect(changedWhilePacking).toEqual([]);
  });
});

describe('the SDK tarball', () => {
  it('holds no CLI, MCP, sandbox or dashboard code and no bin', () => {
    expect(sdkFiles.filter((file) => /(^|\/)(cli|mcp|sandbox|dashboard)([-./]|$)/i.test(file))).toEqual([]);
    expect(sdkFiles).toContain('dist/openapi.json');
    expect(sdkManifest.bin).toBeUndefined();
    expect(Object.keys(sdkManifest.exports as object)).not.toContain('./mcp');
  });
});

describe('the tools tarball installed beside the SDK', () => {
  async function answers(sandbox: SandboxProcess): Promise<void> {
    const balance = await sandbox.fetch('/tasks/wallet-balance', { headers: sandbox.headers() });
    expect(balance.status).toBe(200);
    const reset = await sandbox.fetch('/_sandbox/reset', { method: 'POST' });
    expect(reset.status).toBeLessThan(300);
  }

  it('npx delivery-task-tools sandbox serves the service and the control endpoints, then stops on SIGTERM', async () => {
    const sandbox = await startSandboxProcess([], {
      command: 'npx',
      args: ['--no-install', 'delivery-task-tools'],
      cwd: project,
    });
    try {
      await answers(sandbox);
    } finally {
      expect((await sandbox.stop()).signal ?? 'exited').not.toBe('SIGKILL');
    }
  });

  it('npx delivery-task sandbox works too', async () => {
    const sandbox = await startSandboxProcess([], {
      command: 'npx',
      args: ['--no-install', 'delivery-task'],
      cwd: project,
    });
    try {
      await answers(sandbox);
    } finally {
      expect((await sandbox.stop()).signal ?? 'exited').not.toBe('SIGKILL');
    }
  });

  it('delivery-task mcp starts over stdio and lists its tools', async () => {
    const sandbox = await startSandboxProcess([], {
      command: 'npx',
      args: ['--no-install', 'delivery-task'],
      cwd: project,
    });
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [join(project, 'node_modules', 'delivery-task-tools', 'dist', 'cli.js'), 'mcp'],
      cwd: project,
      env: {
        DELIVERY_API_KEY: sandbox.apiKey,
        DELIVERY_SELLER_ID: sandbox.sellerId,
        DELIVERY_BASE_URL: sandbox.baseUrl,
      },
      stderr: 'pipe',
    });
    const agent = new Client({ name: 'packages-test', version: '1.0.0' });
    try {
      await agent.connect(transport);
      const { tools } = await agent.listTools();
      expect(tools.map((tool) => tool.name)).toContain('get_wallet_balance');
      const balance = await agent.callTool({ name: 'get_wallet_balance', arguments: {} });
      expect(balance.isError ?? false).toBe(false);
    } finally {
      await agent.close();
      await sandbox.stop();
    }
  });
});
