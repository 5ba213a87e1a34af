/**
 * The shape of an operator command: its words, arguments and options (for parsing and help), and what it runs
 * with.
 */
import type { DeliveryClient } from 'delivery-task-sdk';
import type { CommandInput, OptionSpec } from './args.js';
import type { Output } from './output.js';

/** What a command runs with. */
export interface CommandContext {
  /** The client, configured from the environment. */
  readonly client: DeliveryClient;
  /** stdout and stderr, with `--json` and redaction applied. */
  readonly output: Output;
  /** Aborts when the operator stops the command (Ctrl-C, SIGTERM); pass it to every call. */
  readonly signal: AbortSignal;
  /** stderr is a terminal: live progress may be drawn on it. */
  readonly terminal: boolean;
}

/** One operator command. */
export interface OperatorCommandSpec {
  /** The command words: `['tasks', 'list']`, `['estimate']`. */
  readonly words: readonly string[];
  /** Names of the positional arguments, as shown in help: `['<id>']`. */
  readonly arguments: readonly string[];
  /** The command's own options (the global `--json` and `--help` come on top). */
  readonly options: Readonly<Record<string, OptionSpec>>;
  /** One line for the command list of `--help`. */
  readonly summary: string;
  /** Further help lines for `delivery-task <command> --help`. */
  readonly details?: readonly string[];
  /** Runs the command; throws what ends it (the caller turns it into the error line and exit code). */
  run(context: CommandContext, input: CommandInput): Promise<void>;
}

/** `tasks list [--search TEXT] …`: the command's usage line (without the program name). */
export function usageOf(spec: OperatorCommandSpec): string {
  const options = Object.entries(spec.options).map(([name, option]) => {
    const text = option.type === 'string' ? `--${name} ${option.valueName ?? 'VALUE'}` : `--${name}`;
    return option.required === true ? text : `[${text}]`;
  });
  return [...spec.words, ...spec.arguments, ...options, '[--json]'].join(' ');
}
