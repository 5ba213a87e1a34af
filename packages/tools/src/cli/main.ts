/**
 * `delivery-task`: the command-line tool of the SDK (README "CLI"). Dispatches to
 * `sandbox`, `openapi`, `mcp` and the operator commands; answers `--help` and `--version` itself.
 */
import { VERSION } from 'delivery-task-sdk/internal';
import type { CliIo } from './io.js';
import { CLIENT_ENV, DEFAULT_CLI_LOG_LEVEL } from './operator/client-from-env.js';
import { usageOf } from './operator/command.js';
import { EXIT_CODES, EXIT_OK, EXIT_USAGE } from './operator/exit-codes.js';
import { PROGRAM } from './operator/output.js';
import { isOperatorCommandWord, OPERATOR_COMMANDS, operatorCommand } from './operator.js';

/** Commands served by other modules, with their help line. */
const OTHER_COMMANDS: ReadonlyArray<readonly [usage: string, summary: string]> = [
  ['sandbox [options]', 'serve the mock service over HTTP (delivery-task sandbox --help)'],
  ['openapi', 'print the service contract as OpenAPI 3.1 JSON'],
  [
    'mcp [options]',
    'serve an MCP server on stdio for AI agents, read-only by default (delivery-task mcp --help)',
  ],
];

function table(rows: ReadonlyArray<readonly [string, string]>): string[] {
  const width = Math.max(...rows.map(([left]) => left.length));
  return rows.map(([left, right]) => `  ${left}${' '.repeat(width - left.length)}  ${right}`);
}

/** The text of `delivery-task --help`: commands, global options, environment and exit codes. */
export function usage(): string {
  const commands = [
    ...OPERATOR_COMMANDS.map((spec) => [usageOf(spec).replace(/ \[--json\]$/, ''), spec.summary] as const),
    ...OTHER_COMMANDS,
  ];
  return [
    `${PROGRAM} ${VERSION}: the Delivery Task Service from a shell`,
    '',
    `Usage: ${PROGRAM} <command> [options]`,
    '',
    'Commands:',
    ...table(commands),
    '',
    'Global options:',
    ...table([
      [
        '--json',
        'one JSON document on stdout; tasks list and tasks watch: a JSON array, one element per line',
      ],
      ['-h, --help', `this help; ${PROGRAM} <command> --help for one command`],
      ['--version', 'print the version'],
    ]),
    '',
    'Environment (the SDK client reads the same variables):',
    ...table([
      [CLIENT_ENV.apiKey, 'API key (required; never printed)'],
      [CLIENT_ENV.sellerId, 'seller id (required; never printed)'],
      [CLIENT_ENV.baseUrl, 'base URL, with or without /rest (required; https unless loopback)'],
      [
        CLIENT_ENV.logLevel,
        `SDK log lines on stderr: debug, info, warn, error (default: ${DEFAULT_CLI_LOG_LEVEL}), off`,
      ],
    ]),
    '',
    'Exit codes:',
    ...table(EXIT_CODES.map((entry) => [String(entry.code), entry.meaning] as const)),
    '',
    'Errors are one line on stderr, with the request id when the service sent one.',
    '',
  ].join('\n');
}

/**
 * Runs the command line `argv` (without `node` and the script) and resolves with the exit code: no
 * arguments → usage on stderr, 2; `--help`/`-h`/`help` → usage on stdout, 0 (`help <command>` is
 * `<command> --help`); `--version` → the version, 0; an unknown command → one error line, 2.
 */
export async function runCli(argv: readonly string[], io: CliIo): Promise<number> {
  const [command, ...rest] = argv;
  if (command === undefined) {
    io.stderr(usage());
    return EXIT_USAGE;
  }
  if (command === '--version' || command === '-V') {
    io.stdout(`${VERSION}\n`);
    return EXIT_OK;
  }
  if (command === '--help' || command === '-h' || (command === 'help' && rest.length === 0)) {
    io.stdout(usage());
    return EXIT_OK;
  }
  // `help tasks list` is `tasks list --help`.
  if (command === 'help') return runCli([...rest, '--help'], io);
  // Global flags may come first (`--json tasks list`): the first word decides.
  const at = argv.findIndex((token) => !token.startsWith('-'));
  const word = argv[at];
  const others = [...argv.slice(0, at), ...argv.slice(at + 1)];
  // Loaded on demand: the sandbox carries msw, openapi every schema's document, mcp the MCP server. The
  // executable keeps each in a file of its own (tsup.config.ts), so no command loads another's packages at
  // start (test/cli/start-modules.test.ts).
  if (word === 'sandbox') return (await import('./sandbox.js')).sandboxCommand(others, io);
  if (word === 'openapi') return (await import('./openapi.js')).openapiCommand(others, io);
  if (word === 'mcp') return (await import('./mcp.js')).mcpCommand(others, io);
  if (!isOperatorCommandWord(word)) {
    io.stderr(
      `${PROGRAM}: ${word === undefined ? 'missing command' : `unknown command ${JSON.stringify(word)}`} (see ${PROGRAM} --help)\n`,
    );
    return EXIT_USAGE;
  }
  return operatorCommand(argv, io);
}
