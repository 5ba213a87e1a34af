/** Text shown to a person by the MCP server (a confirmation question, an error line). */
import { REDACTED } from 'delivery-task-sdk/internal';

// C0 and C1 controls; the bidirectional marks, embeddings, overrides and isolates (U+061C, U+200E, U+200F,
// U+202A…U+202E, U+2066…U+2069); the zero-width and invisible characters (U+180E, U+200B…U+200D,
// U+2060…U+2064, U+FEFF).
const UNSAFE =
  // biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point.
  /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f\u061c\u180e\u200b-\u200f\u202a-\u202e\u2060-\u2069\ufeff]/g;

/** Longest text a person is shown in one value (an address, a name), characters. */
export const MAX_SHOWN_VALUE_CHARS = 200;

/**
 * At most `maxChars` characters (code points) of `text`, the last of them `…` when it was cut. Never cuts
 * a surrogate pair or the `[redacted]` marker in two. `text` must already be redacted.
 */
export function cut(text: string, maxChars: number): string {
  const characters = [...text];
  if (characters.length <= maxChars) return text;
  let kept = characters.slice(0, Math.max(0, maxChars - 1)).join('');
  const marker = text.lastIndexOf(REDACTED, kept.length);
  if (marker !== -1 && marker + REDACTED.length > kept.length) kept = kept.slice(0, marker);
  return `${kept}…`;
}

/**
 * `text` on one line, without control, direction or zero-width characters (each becomes `�`), at most
 * `maxChars` long. `text` must already be redacted (see the module's note).
 */
export function plainText(text: string, maxChars = MAX_SHOWN_VALUE_CHARS): string {
  return cut(text.replace(UNSAFE, '\ufffd').replace(/\s+/g, ' ').trim(), maxChars);
}

/** A value the service or the agent sent, quoted for a sentence: `"Block 10, Salmiya"`. */
export function quoted(value: unknown, maxChars = MAX_SHOWN_VALUE_CHARS): string {
  return JSON.stringify(
    plainText(typeof value === 'string' ? value : (JSON.stringify(value) ?? ''), maxChars),
  );
}
