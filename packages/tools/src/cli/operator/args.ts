/** Arguments of the operator commands, read into typed values; every problem is a {@link UsageError}. */
import { type ParseArgsOptionDescriptor, parseArgs } from 'node:util';

/** Bad arguments or input given to a command (exit code 2). The message is shown as is. */
export class UsageError extends Error {
  override name = 'UsageError' as const;
}

/** One option of a command. */
export interface OptionSpec {
  /** `string` takes a value, `boolean` does not. */
  readonly type: 'string' | 'boolean';
  /** Placeholder of the value in help text, e.g. `N` or `LAT,LNG`. */
  readonly valueName?: string;
  readonly required?: boolean;
  /** One line of help. */
  readonly description: string;
}

/** What a command receives: option values by name, and its positional arguments. */
export interface CommandInput {
  readonly values: Readonly<Record<string, string | boolean | undefined>>;
  readonly positionals: readonly string[];
}

/** Options every command accepts. */
export const GLOBAL_OPTIONS: Readonly<Record<string, OptionSpec & { short?: string }>> = {
  json: { type: 'boolean', description: 'print one JSON document on stdout (for scripts)' },
  help: { type: 'boolean', short: 'h', description: 'show help for this command' },
};

/**
 * Parses `args` (after the command words) strictly against the global options and `options`; with
 * `--help`, returns before checking positionals and required options.
 * @throws {UsageError} for an unknown option or value, a wrong number of positionals, a missing required
 * option.
 */
export function parseCommandArgs(
  args: readonly string[],
  options: Readonly<Record<string, OptionSpec>>,
  positionalNames: readonly string[],
): CommandInput {
  const config: Record<string, ParseArgsOptionDescriptor> = {};
  for (const [name, spec] of Object.entries({ ...GLOBAL_OPTIONS, ...options })) {
    config[name] =
      'short' in spec && typeof spec.short === 'string'
        ? { type: spec.type, short: spec.short }
        : { type: spec.type };
  }
  let parsed: {
    values: Record<string, string | boolean | (string | boolean)[] | undefined>;
    positionals: string[];
  };
  try {
    parsed = parseArgs({ args: [...args], options: config, strict: true, allowPositionals: true });
  } catch (error) {
    // parseArgs explains itself over several lines; one line reads better in a terminal.
    throw new UsageError(oneLine(error instanceof Error ? error.message : String(error)));
  }
  const values: Record<string, string | boolean | undefined> = {};
  for (const [name, value] of Object.entries(parsed.values)) {
    // A repeated option keeps its last value.
    values[name] = Array.isArray(value) ? value.at(-1) : value;
  }
  if (values.help === true) return { values, positionals: parsed.positionals };
  const expected = positionalNames.length;
  if (parsed.positionals.length > expected) {
    throw new UsageError(`unexpected argument ${JSON.stringify(parsed.positionals[expected])}`);
  }
  if (parsed.positionals.length < expected) {
    throw new UsageError(`missing ${positionalNames.slice(parsed.positionals.length).join(' ')}`);
  }
  for (const [name, spec] of Object.entries(options)) {
    if (spec.required === true && values[name] === undefined) {
      throw new UsageError(`missing --${name} ${spec.valueName ?? ''}`.trimEnd());
    }
  }
  return { values, positionals: parsed.positionals };
}

/** The text on one line: runs of whitespace become one space. */
export function oneLine(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

export function stringValue(input: CommandInput, name: string): string | undefined {
  const value = input.values[name];
  return typeof value === 'string' ? value : undefined;
}

/**
 * An integer option in `min`…`max`, or `undefined` when absent. @throws {UsageError} otherwise (`1e3`, `-1`).
 */
export function integerValue(
  input: CommandInput,
  name: string,
  min: number,
  max: number,
): number | undefined {
  const text = stringValue(input, name);
  if (text === undefined) return undefined;
  const value = /^\d+$/.test(text) ? Number(text) : Number.NaN;
  if (!Number.isSafeInteger(value) || value < min || value > max) {
    throw new UsageError(`--${name} must be an integer from ${min} to ${max}, got ${JSON.stringify(text)}`);
  }
  return value;
}

/**
 * A duration option in seconds (`0.5`), returned in ms; `fallbackMs` when absent.
 * @throws {UsageError} outside `minMs`…`maxMs` or when not a plain decimal number.
 */
export function secondsValue(
  input: CommandInput,
  name: string,
  bounds: { minMs: number; maxMs: number; fallbackMs: number },
): number {
  const text = stringValue(input, name);
  if (text === undefined) return bounds.fallbackMs;
  const ms = /^\d+(\.\d+)?$/.test(text) ? Math.round(Number(text) * 1000) : Number.NaN;
  if (!Number.isFinite(ms) || ms < bounds.minMs || ms > bounds.maxMs) {
    throw new UsageError(
      `--${name} must be a number of seconds from ${bounds.minMs / 1000} to ${bounds.maxMs / 1000}, got ${JSON.stringify(text)}`,
    );
  }
  return ms;
}

const DECIMAL = /^[+-]?(\d+(\.\d*)?|\.\d+)$/;

/**
 * A point given as `LAT,LNG` in decimal degrees (`29.3759,47.9774`); the SDK checks the ranges.
 * @throws {UsageError} when the text is not two decimal numbers separated by a comma.
 */
export function pointValue(input: CommandInput, name: string): { latitude: number; longitude: number } {
  const text = stringValue(input, name) ?? '';
  const parts = text.split(',').map((part) => part.trim());
  const [latitude, longitude] = parts;
  if (
    parts.length !== 2 ||
    latitude === undefined ||
    longitude === undefined ||
    !DECIMAL.test(latitude) ||
    !DECIMAL.test(longitude)
  ) {
    throw new UsageError(
      `--${name} must be LAT,LNG in decimal degrees, like 29.3759,47.9774 (negative: --${name}=-1.5,2), got ${JSON.stringify(text)}`,
    );
  }
  return { latitude: Number(latitude), longitude: Number(longitude) };
}
