/**
 * What a `delivery-task` subcommand gets from the process: its output streams, the environment and a
 * signal that aborts on SIGINT/SIGTERM. Tests give their own to run a command in process.
 */

/** The process as a subcommand sees it. */
export interface CliIo {
  /** Writes text to standard output (add the newline yourself). */
  stdout(text: string): void;
  /** Writes text to standard error (add the newline yourself). */
  stderr(text: string): void;
  /** Environment variables (`DELIVERY_API_KEY`, `DELIVERY_SELLER_ID`, `DELIVERY_BASE_URL`, …). */
  env: Readonly<Record<string, string | undefined>>;
  /** Aborts when the process is asked to stop (SIGINT or SIGTERM). */
  signal: AbortSignal;
  /** Standard error is a terminal: long listings show live progress there. Default `false`. */
  stderrIsTTY?: boolean;
  /**
   * The byte streams of a command that speaks a protocol on stdin and stdout (`delivery-task mcp`).
   * Default: the process's own.
   */
  streams?: { stdin: NodeJS.ReadableStream & { pause(): unknown }; stdout: NodeJS.WritableStream };
}

/** A subcommand: its arguments after the command words, and the process; resolves with the exit code. */
export type CliCommand = (argv: readonly string[], io: CliIo) => Promise<number>;
