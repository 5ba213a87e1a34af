/** How `delivery-task` shows values: `kwd.format`, ISO 8601 UTC, no control characters, aligned tables. */
import { kwd } from 'delivery-task-sdk';

/** Shown for a value the service did not send. */
export const ABSENT = '—';

/** Rows a table buffers before it writes them (its memory bound); later rows may widen later blocks. */
export const TABLE_BLOCK_ROWS = 100;

/** Longest cell, in characters; longer text is cut with `…`. */
export const MAX_CELL_CHARS = 200;

// C0 and C1 controls: a service answer must not move the cursor or recolour the terminal.
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point.
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/g;

/** The text with every control character (newlines, tabs, escapes) replaced by `�`. */
export function withoutControls(text: string): string {
  return text.replace(CONTROL, '\ufffd');
}

/** Text safe to print in a cell: {@link withoutControls}, cut to {@link MAX_CELL_CHARS} characters. */
export function printable(text: string): string {
  const clean = withoutControls(text);
  const characters = [...clean];
  return characters.length > MAX_CELL_CHARS ? `${characters.slice(0, MAX_CELL_CHARS - 1).join('')}…` : clean;
}

/** A value the service sent, as printable text; {@link ABSENT} for `undefined`, `null` or `''`. */
export function textCell(value: unknown): string {
  if (value === undefined || value === null || value === '') return ABSENT;
  return printable(typeof value === 'string' ? value : JSON.stringify(value));
}

/** A KWD amount as `KWD 1,234.500`; {@link ABSENT} when absent; printable as sent when not an amount. */
export function kwdCell(amount: unknown): string {
  if (amount === undefined || amount === null || amount === '') return ABSENT;
  return kwd.isValid(amount) ? kwd.format(amount) : textCell(amount);
}

/** A date-time as `2026-11-22T10:31:05Z`; {@link ABSENT} when absent; printable as sent when not a date. */
export function timeCell(value: unknown): string {
  if (typeof value !== 'string' || value === '') return ABSENT;
  const time = Date.parse(value);
  if (Number.isNaN(time)) return printable(value);
  return new Date(time).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

/** Terminal columns: one per code point (wide scripts are not measured). */
function widthOf(text: string): number {
  return [...text].length;
}

export interface TableColumn {
  /** Header text, written in capitals. */
  readonly title: string;
  /** Money and counts align right; text left. Default left. */
  readonly align?: 'left' | 'right';
}

/**
 * Writes an aligned table, columns two spaces apart, in blocks of {@link TABLE_BLOCK_ROWS} rows (bounded
 * memory); widths only grow from block to block. Cells must already be printable.
 */
export class TableWriter {
  readonly #columns: readonly TableColumn[];
  readonly #writeLine: (line: string) => void;
  readonly #widths: number[];
  #rows: string[][] = [];
  #headerWritten = false;

  constructor(columns: readonly TableColumn[], writeLine: (line: string) => void) {
    this.#columns = columns;
    this.#writeLine = writeLine;
    this.#widths = columns.map((column) => widthOf(column.title));
  }

  /** Adds a row (one cell per column); writes the block when it is full. */
  add(cells: readonly string[]): void {
    this.#rows.push(this.#columns.map((_, index) => cells[index] ?? ''));
    if (this.#rows.length >= TABLE_BLOCK_ROWS) this.#flush();
  }

  /** Writes what is left; with no row at all, not even the header. */
  end(): void {
    this.#flush();
  }

  #flush(): void {
    if (this.#rows.length === 0) return;
    for (const row of this.#rows) {
      row.forEach((cell, index) => {
        this.#widths[index] = Math.max(this.#widths[index] ?? 0, widthOf(cell));
      });
    }
    if (!this.#headerWritten) {
      this.#writeLine(this.#line(this.#columns.map((column) => column.title.toUpperCase())));
      this.#headerWritten = true;
    }
    for (const row of this.#rows) this.#writeLine(this.#line(row));
    this.#rows = [];
  }

  #line(cells: readonly string[]): string {
    return cells
      .map((cell, index) => {
        const pad = ' '.repeat(Math.max(0, (this.#widths[index] ?? 0) - widthOf(cell)));
        return this.#columns[index]?.align === 'right' ? `${pad}${cell}` : `${cell}${pad}`;
      })
      .join('  ')
      .trimEnd();
  }
}

/** `label  value` lines with the values aligned; pairs whose value is `undefined` are left out. */
export function labelled(
  pairs: ReadonlyArray<readonly [label: string, value: string | undefined]>,
): string[] {
  const shown = pairs.filter((pair): pair is readonly [string, string] => pair[1] !== undefined);
  const width = Math.max(0, ...shown.map(([label]) => widthOf(label)));
  return shown.map(([label, value]) => `${label}${' '.repeat(width - widthOf(label))}  ${value}`.trimEnd());
}
