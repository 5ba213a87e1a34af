/** The MCP server on standard input and output, for desktop and IDE agents. */
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import type { DeliveryClient } from 'delivery-task-sdk';
import type { McpPolicy } from './policy.js';
import { createMcpServer } from './server.js';

/** Options of {@link serveStdio}. */
export interface StdioOptions {
  /** Where messages come from. Default `process.stdin`. */
  readonly stdin?: NodeJS.ReadableStream & { pause(): unknown };
  /** Where messages go. Default `process.stdout`. */
  readonly stdout?: NodeJS.WritableStream;
  /** Stops serving (SIGINT, SIGTERM). */
  readonly signal?: AbortSignal;
  /**
   * Called once the client has initialized the session, with its name (as it sent it: untrusted text) and
   * whether it can ask the person a question (form elicitation), which decides how bookings are confirmed
   * (`docs/mcp.md`, "How a booking is guarded").
   */
  readonly onInitialized?: (client: { readonly name: string; readonly elicitation: boolean }) => void;
}

/**
 * Serves `client` under `policy` over stdio until the input ends or `options.signal` aborts.
 * @throws {ConfigurationError} for a bad policy, before anything is read.
 */
export async function serveStdio(
  client: DeliveryClient,
  policy: McpPolicy,
  options: StdioOptions = {},
): Promise<void> {
  const server = createMcpServer(client, policy);
  const stdin = options.stdin ?? process.stdin;
  const transport = new StdioServerTransport(
    stdin as typeof process.stdin,
    (options.stdout ?? process.stdout) as typeof process.stdout,
  );
  const closed = new Promise<void>((resolve) => {
    const stopSubscriptions = server.onclose;
    server.onclose = () => {
      stopSubscriptions?.();
      resolve();
    };
  });
  if (options.onInitialized !== undefined) {
    const report = options.onInitialized;
    server.oninitialized = () =>
      report({
        name: server.getClientVersion()?.name ?? '',
        elicitation: server.getClientCapabilities()?.elicitation?.form !== undefined,
      });
  }
  const close = () => void server.close().catch(() => {});
  stdin.once('end', close);
  stdin.once('close', close);
  options.signal?.addEventListener('abort', close, { once: true });
  if (options.signal?.aborted) close();
  await server.connect(transport);
  try {
    await closed;
  } finally {
    stdin.off('end', close);
    stdin.off('close', close);
    options.signal?.removeEventListener('abort', close);
  }
}
