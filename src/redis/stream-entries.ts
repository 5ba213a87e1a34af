/** Stream replies read: an entry's fields, the entries of an `XRANGE`, and the order of entry ids. @module */
import { scalarText, textReply } from './commands.js';

/** A stream entry's fields, `[name, value, …]` as a record. */
export function fieldsOf(raw: unknown): Record<string, string> {
  const fields: Record<string, string> = {};
  if (!Array.isArray(raw)) return fields;
  for (let index = 0; index + 1 < raw.length; index += 2) {
    const name = scalarText(raw[index]);
    const value = scalarText(raw[index + 1]);
    if (name !== undefined && value !== undefined) fields[name] = value;
  }
  return fields;
}

/** Stream entries `[[id, fields], …]`, nil ones skipped. */
export function entriesOf(raw: unknown): { id: string; fields: Record<string, string> }[] {
  if (!Array.isArray(raw)) return [];
  const entries: { id: string; fields: Record<string, string> }[] = [];
  for (const item of raw) {
    if (!Array.isArray(item)) continue;
    const id = textReply(item[0], 'XRANGE');
    if (id !== undefined && item[1] !== null && item[1] !== undefined)
      entries.push({ id, fields: fieldsOf(item[1]) });
  }
  return entries;
}

/** An entry id `<ms>-<seq>` as its two numbers. */
export function idParts(id: string): [bigint, bigint] {
  const [ms = '0', seq = '0'] = id.split('-');
  return [BigInt(ms), BigInt(seq)];
}

/** True when entry id `a` comes before `b`. */
export function idBefore(a: string, b: string): boolean {
  const [am, as] = idParts(a);
  const [bm, bs] = idParts(b);
  return am < bm || (am === bm && as < bs);
}
