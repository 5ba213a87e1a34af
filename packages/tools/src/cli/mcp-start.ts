/**
 * What `delivery-task mcp` says on stderr when it starts and when a client connects (README "Agents
 * (MCP)"; `docs/mcp.md`, "Run it"), and where it keeps the day's spending without `--redis`.
 */
import { homedir } from 'node:os';
import { isAbsolute, join } from 'node:path';
import { kwd } from 'delivery-task-sdk';
import type { McpConfirmation } from '../mcp/policy.js';
import { plainText } from '../mcp/text.js';

/** The state file's name inside the user's state folder. */
export const STORE_FILE_NAME = join('delivery-task', 'mcp-store.json');

/**
 * The file that keeps the day's spending and the bookings in progress without `--redis`: in the user's state
 * folder, `$XDG_STATE_HOME` (an absolute path) or `~/.local/state` on Linux and other systems,
 * `~/Library/Application Support` on macOS, `%LOCALAPPDATA%` on Windows.
 */
export function defaultStoreFile(
  env: Readonly<Record<string, string | undefined>>,
  platform: NodeJS.Platform = process.platform,
  home: string = homedir(),
): string {
  const xdg = env.XDG_STATE_HOME;
  if (platform === 'win32') return join(env.LOCALAPPDATA || join(home, 'AppData', 'Local'), STORE_FILE_NAME);
  if (xdg !== undefined && isAbsolute(xdg)) return join(xdg, STORE_FILE_NAME);
  if (platform === 'darwin') return join(home, 'Library', 'Application Support', STORE_FILE_NAME);
  return join(home, '.local', 'state', STORE_FILE_NAME);
}

/** What the start line reports: the policy the server runs with, as the command built it. */
export interface StartFacts {
  readonly allow: readonly string[];
  /** KWD text; `undefined`: lifted by `--no-limits`. */
  readonly maxFeeKwd: string | undefined;
  readonly dailyCapKwd: string | undefined;
  /** Which of the two came from a flag (else the stated default). */
  readonly set: { readonly maxFee: boolean; readonly dailyCap: boolean };
  /** KWD text; `null`: no balance check. */
  readonly walletFloorKwd: string | null;
  readonly confirmation: McpConfirmation;
  /** Where spending is counted: the store file's path, or `undefined` for Redis. */
  readonly storeFile: string | undefined;
}

const CONFIRMATION_TEXT: Readonly<Record<McpConfirmation, string>> = {
  'elicitation-or-token':
    'bookings confirmed by the person when the client can ask them (elicitation), otherwise by the agent alone, repeating its call with a token (--confirmation elicitation requires the person)',
  elicitation:
    'bookings confirmed by the person only (elicitation); a client that cannot ask them books nothing',
};

/** The lines written on stderr at start: a warning when the limits are lifted, then the start line. */
export function startLines(facts: StartFacts): string[] {
  const allow = `delivery-task mcp: serving on stdio; allow ${facts.allow.join(', ')}`;
  if (!facts.allow.includes('create')) return [`${allow}; nothing is booked\n`];
  const limit = (name: string, value: string | undefined, set: boolean, flag: string) =>
    value === undefined
      ? `no ${name} (--no-limits)`
      : `${name} ${value} KWD (${set ? flag : `default; ${flag}`})`;
  const lines: string[] = [];
  if (facts.maxFeeKwd === undefined && facts.dailyCapKwd === undefined) {
    lines.push(
      'delivery-task mcp: warning: --no-limits: no fee limit per delivery and no daily cap; an agent may spend the wallet down to its floor, one confirmed booking at a time\n',
    );
  }
  const parts = [
    allow,
    limit('fee limit per delivery', facts.maxFeeKwd, facts.set.maxFee, '--max-fee-kwd'),
    limit('daily cap', facts.dailyCapKwd, facts.set.dailyCap, '--daily-cap-kwd'),
    facts.walletFloorKwd === null
      ? 'no wallet floor'
      : `wallet floor ${kwd.normalize(facts.walletFloorKwd)} KWD`,
    CONFIRMATION_TEXT[facts.confirmation],
    facts.storeFile === undefined
      ? 'spending counted in Redis, shared by every process using it'
      : `spending counted in ${facts.storeFile}, kept across restarts and shared by the processes of this machine`,
  ];
  lines.push(`${parts.join('; ')}\n`);
  return lines;
}

/** The line written when a client has connected: how its bookings will be confirmed. */
export function clientLine(
  client: { name: string; elicitation: boolean },
  confirmation: McpConfirmation,
): string {
  const name = JSON.stringify(plainText(client.name, 60));
  const how = client.elicitation
    ? 'it can ask the person: each booking is confirmed by the person'
    : confirmation === 'elicitation'
      ? 'it cannot ask the person (no elicitation): bookings are refused (--confirmation elicitation)'
      : 'it cannot ask the person (no elicitation): bookings are confirmed by the agent alone, with a token';
  return `delivery-task mcp: client ${name} connected; ${how}\n`;
}
