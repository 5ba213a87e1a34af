/**
 * Driving the MCP server in tests with the MCP SDK's own client: over its in-memory transport (the
 * server in this process) or over stdio (`delivery-task mcp` as a child process), with or without
 * elicitation. Helpers read what a tool result carries.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  type ElicitRequest,
  ElicitRequestSchema,
  type ElicitResult,
} from '@modelcontextprotocol/sdk/types.js';
import { temporaryFolder } from '../../../../test/support/temporary-folders.js';
import { cliFromSources } from '../support/cli-command.js';
import { ROOT } from '../support/sandbox-process.js';

/** What a test client answers to an elicitation; `undefined` declares no elicitation at all. */
export type Elicit = (request: ElicitRequest['params']) => ElicitResult | Promise<ElicitResult>;

/** Options of a test client. */
export interface ClientOptions {
  /** Elicitation modes the client declares. Default: none. */
  readonly elicitation?: { form?: boolean; url?: boolean };
  /** Answers elicitation requests. Default: declines. */
  readonly onElicit?: Elicit;
}

function newClient(options: ClientOptions): Client {
  const modes = options.elicitation;
  const elicitation =
    modes === undefined
      ? undefined
      : { ...(modes.form ? { form: {} } : {}), ...(modes.url ? { url: {} } : {}) };
  const client = new Client(
    { name: 'delivery-task-tests', version: '1.0.0' },
    { capabilities: elicitation === undefined ? {} : { elicitation } },
  );
  if (elicitation !== undefined) {
    client.setRequestHandler(ElicitRequestSchema, async (request) =>
      options.onElicit === undefined ? { action: 'decline' } : options.onElicit(request.params),
    );
  }
  return client;
}

/** A client connected to `server` over the SDK's in-memory transport. */
export async function connectInMemory(server: Server, options: ClientOptions = {}): Promise<Client> {
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const client = newClient(options);
  await client.connect(clientSide);
  return client;
}

/** A stdio client and what the server wrote on stderr. */
export interface StdioSession {
  readonly client: Client;
  stderr(): string;
  close(): Promise<void>;
}

/**
 * A new empty folder for a process's `XDG_STATE_HOME` (where it keeps the day's spending), removed when the
 * test file ends.
 */
export function newStateDir(): string {
  return temporaryFolder('delivery-task-mcp-state-');
}

/**
 * `delivery-task mcp …args` from source as a child process with only `env` (plus PATH), connected over stdio.
 * Without `XDG_STATE_HOME` in `env`, the process gets a state folder of its own: it counts spending alone.
 */
export async function connectStdio(
  args: readonly string[],
  env: Record<string, string>,
  options: ClientOptions = {},
): Promise<StdioSession> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [...cliFromSources(), 'mcp', ...args],
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', XDG_STATE_HOME: env.XDG_STATE_HOME ?? newStateDir(), ...env },
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const client = newClient(options);
  await client.connect(transport);
  return { client, stderr: () => stderr, close: () => client.close() };
}

/** A tool result as the client sees it. */
export interface ToolResult {
  readonly isError?: boolean;
  readonly content: ReadonlyArray<{ type: string; text?: string }>;
  readonly structuredContent?: Record<string, unknown>;
}

/** Calls a tool. */
export async function call(
  client: Client,
  name: string,
  args: Record<string, unknown> = {},
): Promise<ToolResult> {
  return (await client.callTool({ name, arguments: args })) as ToolResult;
}

/** Every text block of a result, joined. */
export function textOf(result: ToolResult): string {
  return result.content.map((block) => block.text ?? '').join('\n');
}

/** The structured content of a successful result; throws with the text of an error result. */
export function dataOf(result: ToolResult): Record<string, unknown> {
  if (result.isError) throw new Error(`tool error: ${textOf(result)}`);
  if (result.structuredContent === undefined) throw new Error('no structured content');
  return result.structuredContent;
}

/** The refusal of an error result: `{ rule, … }` from its JSON block; throws when it is no refusal. */
export function refusalOf(result: ToolResult): Record<string, unknown> & { rule: string } {
  if (!result.isError) throw new Error(`expected a refusal, got ${textOf(result).slice(0, 500)}`);
  const json = result.content.find((block) => block.text?.startsWith('{"refused"'));
  if (json?.text === undefined) throw new Error(`not a refusal: ${textOf(result)}`);
  return (JSON.parse(json.text) as { refused: Record<string, unknown> & { rule: string } }).refused;
}

/** Kuwait City (the mock's origin and default pickup) and a delivery point in Salmiya: fee 1.815 KWD in the mock. */
export const ORIGIN = { latitude: 29.3759, longitude: 47.9774 };
export const SALMIYA = { latitude: 29.3339, longitude: 48.0761 };
/** The mock's fee for {@link ORIGIN} → {@link SALMIYA}, fils. */
export const SALMIYA_FEE_FILS = 1815;

/** Create arguments of an order delivered to Salmiya from the default pickup. */
export function booking(orderNumber: string, estimateId: unknown): Record<string, unknown> {
  return {
    orderNumber,
    customerName: `Customer ${orderNumber}`,
    customerNumber: '+96550001234',
    deliveryLocation: { ...SALMIYA, fullAddress: ['Block 10, Street 5', 'Salmiya'] },
    estimateId,
  };
}

/** Quotes {@link ORIGIN} → `to` and returns the estimateId. */
export async function quote(client: Client, to = SALMIYA, from = ORIGIN): Promise<string> {
  return dataOf(await call(client, 'estimate_delivery', { from, to })).estimateId as string;
}

/** Quotes, asks, confirms: the two-step booking of `orderNumber`; resolves with the second step's result. */
export async function bookTwoStep(client: Client, orderNumber: string): Promise<ToolResult> {
  const args = booking(orderNumber, await quote(client));
  const first = await call(client, 'create_delivery', args);
  if (first.isError) return first;
  const token = dataOf(first).confirmationToken;
  return call(client, 'create_delivery', { ...args, confirmationToken: token });
}
