import { describe, expect, it, vi } from 'vitest';
import { compile } from 'zod/mini';

const installed = vi.hoisted(() => [] as unknown[]);

vi.mock('../../src/internal/validate.js', async (importOriginal) => {
  const actual = await importOriginal<typeof import('../../src/internal/validate.js')>();
  return {
    ...actual,
    useSchemaCompiler: (...args: Parameters<typeof actual.useSchemaCompiler>) => {
      installed.push(args[0]);
      actual.useSchemaCompiler(...args);
    },
  };
});

describe('the webhooks entry’s Node build', () => {
  it('installs zod’s schema compiler when loaded alone, and reads bodies as the runtime parser does', async () => {
    const { parseWebhookEvent } = await import('../../src/webhooks.node.js');
    expect(installed).toEqual([compile]);
    const event = parseWebhookEvent(JSON.stringify({ _id: 'task-1', status: 'delivered', extra: { a: 1 } }));
    expect(event).toMatchObject({ taskId: 'task-1', kind: 'delivered', payload: { extra: { a: 1 } } });
    expect(() => parseWebhookEvent('{"status":"delivered"}')).toThrow(/Missing task id/);
  });
});
