/** Where an operator command writes. */
import { DeliveryError } from 'delivery-task-sdk';
import { Redactor } from 'delivery-task-sdk/internal';
import { withoutControls } from '../format.js';
import type { CliIo } from '../io.js';
import { oneLine, UsageError } from './args.js';
import { CLIENT_ENV } from './client-from-env.js';

/** Prefix of every line written on stderr. */
export const PROGRAM = 'delivery-task';

/** Longest error line, in characters (before the newline). */
export const MAX_ERROR_LINE_CHARS = 2000;

/** A JSON array written one element per line as the elements come (nothing buffered). */
export interface JsonArrayWriter {
  add(value: unknown): void;
  /** Closes the array; not called on failure, so a script cannot mistake a cut array for a whole one. */
  end(): void;
}

/** The output streams of one command run. */
export class Output {
  readonly json: boolean;
  readonly #io: CliIo;
  readonly #redactor: Redactor;

  constructor(io: CliIo, json: boolean, secrets: readonly (string | undefined)[]) {
    this.#io = io;
    this.json = json;
    this.#redactor = new Redactor(secrets.map((secret) => secret?.trim()));
  }

  /**
   * A copy of a value without the secrets; redact before cutting to a cell, or a cut secret leaves its start.
   */
  redact<T>(value: T): T {
    return this.#redactor.value(value) as T;
  }

  /** Writes one line of human output on stdout. */
  line(text: string): void {
    this.#io.stdout(`${this.#redactor.text(text)}\n`);
  }

  /** Writes a JSON document on stdout, indented by two spaces. */
  document(value: unknown): void {
    this.#io.stdout(`${JSON.stringify(this.#redactor.value(value), null, 2)}\n`);
  }

  /** Starts a JSON array on stdout, one compact element per line. An empty array reads `[]`. */
  jsonArray(): JsonArrayWriter {
    let count = 0;
    return {
      add: (value) => {
        this.#io.stdout(`${count === 0 ? '[\n' : ',\n'}${JSON.stringify(this.#redactor.value(value))}`);
        count++;
      },
      end: () => {
        this.#io.stdout(count === 0 ? '[]\n' : '\n]\n');
      },
    };
  }

  /** Writes a note on stderr: `delivery-task: <text>`, on one line. */
  note(text: string): void {
    this.#io.stderr(`${PROGRAM}: ${withoutControls(this.#redactor.text(oneLine(text)))}\n`);
  }

  /** Writes raw text on stderr (progress on a terminal); secrets removed. */
  stderrRaw(text: string): void {
    this.#io.stderr(this.#redactor.text(text));
  }

  /**
   * Writes the error that ended the command on one stderr line, `delivery-task: <Class>: <message>` with any
   * request id, secrets removed, at most {@link MAX_ERROR_LINE_CHARS} characters.
   */
  failure(error: unknown, command: string | undefined): void {
    let text: string;
    if (error instanceof UsageError) {
      text = `${command ? `${command}: ` : ''}${error.message} (see ${PROGRAM} ${command ? `${command} ` : ''}--help)`;
    } else if (error instanceof DeliveryError) {
      // The SDK's hint names the client option; the CLI's user sets the environment variable.
      text = `${error.name}: ${error.message.replace(/check baseUrl\b/g, `check ${CLIENT_ENV.baseUrl}`)}`;
      const requestId = requestIdOf(error);
      if (requestId !== undefined && !text.includes(requestId)) text += ` (request id ${requestId})`;
    } else if (error instanceof Error) {
      text = `unexpected error: ${error.name}: ${error.message}`;
    } else {
      text = `unexpected error: ${String(error)}`;
    }
    this.#io.stderr(
      `${PROGRAM}: ${withoutControls(this.#redactor.excerpt(oneLine(text), MAX_ERROR_LINE_CHARS))}\n`,
    );
  }
}

/** The request id of an error or of its causes (three links at most). */
function requestIdOf(error: unknown): string | undefined {
  let current: unknown = error;
  for (let depth = 0; depth < 4 && typeof current === 'object' && current !== null; depth++) {
    const requestId = (current as { requestId?: unknown }).requestId;
    if (typeof requestId === 'string' && requestId !== '') return requestId;
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}
