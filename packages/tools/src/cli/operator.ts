/** The operator commands of `delivery-task` (README "CLI"). */
import type { CliCommand, CliIo } from './io.js';
import { GLOBAL_OPTIONS, parseCommandArgs, UsageError } from './operator/args.js';
import { branches } from './operator/branches.js';
import { clientFromEnv, secretsOf } from './operator/client-from-env.js';
import { type OperatorCommandSpec, usageOf } from './operator/command.js';
import { tasksCreate } from './operator/create.js';
import { estimate } from './operator/estimate.js';
import { EXIT_INTERRUPTED, EXIT_OK, EXIT_USAGE, exitCodeOf } from './operator/exit-codes.js';
import { Output, PROGRAM } from './operator/output.js';
import { tasksGet, tasksList } from './operator/tasks.js';
import { walletBalance, walletTopUp } from './operator/wallet.js';
import { tasksWatch } from './operator/watch.js';

/** Every operator command, in the order `--help` lists them. */
export const OPERATOR_COMMANDS: readonly OperatorCommandSpec[] = [
  tasksList,
  tasksGet,
  tasksCreate,
  tasksWatch,
  estimate,
  branches,
  walletBalance,
  walletTopUp,
];

/** Global flags that may come before the command words (`delivery-task --json tasks list`). */
const LEADING_FLAGS: ReadonlySet<string> = new Set(['--json', '--help', '-h']);

/** A process whose stderr is a terminal: it gets live progress on long listings (a count line either way). */
export function isTerminal(io: CliIo): boolean {
  return io.stderrIsTTY === true;
}

/** True when `word` starts an operator command (`tasks`, `estimate`, `branches`, `wallet`). */
export function isOperatorCommandWord(word: string | undefined): boolean {
  return OPERATOR_COMMANDS.some((spec) => spec.words[0] === word);
}

function pad(text: string, width: number): string {
  return `${text}${' '.repeat(Math.max(0, width - text.length))}`;
}

/** Help of one command: usage, summary, options, notes. */
export function commandHelp(spec: OperatorCommandSpec): string {
  const options = Object.entries({ ...spec.options, ...GLOBAL_OPTIONS }).map(([name, option]) => {
    const short = 'short' in option && typeof option.short === 'string' ? `-${option.short}, ` : '';
    const flag = `${short}--${name}${option.type === 'string' ? ` ${option.valueName ?? 'VALUE'}` : ''}`;
    return [flag, option.description] as const;
  });
  const width = Math.max(...options.map(([flag]) => flag.length));
  return [
    `Usage: ${PROGRAM} ${usageOf(spec)}`,
    '',
    `${spec.summary[0]?.toUpperCase() ?? ''}${spec.summary.slice(1)}.`,
    '',
    'Options:',
    ...options.map(([flag, description]) => `  ${pad(flag, width)}  ${description}`),
    ...(spec.details === undefined ? [] : ['', ...spec.details]),
    '',
    `Environment and exit codes: ${PROGRAM} --help`,
    '',
  ].join('\n');
}

/** The commands of one group (`tasks`, `wallet`), for `delivery-task tasks --help` and its mistakes. */
function groupHelp(group: string): string {
  const specs = OPERATOR_COMMANDS.filter((spec) => spec.words[0] === group);
  const width = Math.max(...specs.map((spec) => usageOf(spec).length));
  return [
    `Usage: ${PROGRAM} ${group} <command>`,
    '',
    ...specs.map((spec) => `  ${pad(usageOf(spec), width)}  ${spec.summary}`),
    '',
    `${PROGRAM} ${group} <command> --help for one command.`,
    '',
  ].join('\n');
}

/** Runs one operator command; `argv` starts with the command words (`['tasks', 'list', …]`). */
export const operatorCommand: CliCommand = async (argv, io) => {
  let index = 0;
  while (index < argv.length && LEADING_FLAGS.has(argv[index] ?? '')) index++;
  const leading = argv.slice(0, index);
  const first = argv[index];
  const second = argv[index + 1];
  const plain = new Output(io, false, secretsOf(io));
  const group = OPERATOR_COMMANDS.filter((spec) => spec.words[0] === first);
  if (first === undefined || group.length === 0) {
    plain.failure(new UsageError(`unknown command ${JSON.stringify(first ?? '')}`), undefined);
    return EXIT_USAGE;
  }
  const spec = group.find((each) => each.words.length === 1 || each.words[1] === second);
  if (spec === undefined) {
    if (
      second === '--help' ||
      second === '-h' ||
      (second === undefined && leading.some((flag) => flag !== '--json'))
    ) {
      io.stdout(groupHelp(first));
      return EXIT_OK;
    }
    plain.failure(
      new UsageError(second === undefined ? 'missing command' : `unknown command ${JSON.stringify(second)}`),
      first,
    );
    io.stderr(groupHelp(first));
    return EXIT_USAGE;
  }
  const command = spec.words.join(' ');
  let input: ReturnType<typeof parseCommandArgs>;
  try {
    input = parseCommandArgs(
      [...leading, ...argv.slice(index + spec.words.length)],
      spec.options,
      spec.arguments,
    );
  } catch (error) {
    plain.failure(error, command);
    return EXIT_USAGE;
  }
  if (input.values.help === true) {
    io.stdout(commandHelp(spec));
    return EXIT_OK;
  }
  const output = new Output(io, input.values.json === true, secretsOf(io));
  try {
    await spec.run({ client: clientFromEnv(io), output, signal: io.signal, terminal: isTerminal(io) }, input);
    return EXIT_OK;
  } catch (error) {
    const code = exitCodeOf(error, io.signal.aborted);
    if (code === EXIT_INTERRUPTED) output.note(`${command}: interrupted`);
    else output.failure(error, command);
    return code;
  }
};
