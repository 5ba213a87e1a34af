/**
 * Text shown to a person by the MCP server (a confirmation question, an error line): merchant and
 * customer data inside it must not steer what the person reads. Control characters and the Unicode
 * direction overrides (which can make a name display as text it does not contain, or an amount read
 * backwards) are replaced, runs of whitespace become one space, and the text is cut to a bound.
 * @module
 */

// C0 and C1 controls, and the bidirectional embeddings, overrides and isolates (U+202A…U+202E, U+2066…U+2069).
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point.
const UNSAFE = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g;

/** Longest text a person is shown in one value (an address, a name), characters. */
export const MAX_SHOWN_VALUE_CHARS = 200;

/** `text` on one line, without control or direction characters (each becomes `�`), at most `maxChars` long. */
export function plainText(text: string, maxChars = MAX_SHOWN_VALUE_CHARS): string {
  const clean = text.replace(UNSAFE, '\ufffd').replace(/\s+/g, ' ').trim();
  const characters = [...clean];
  return characters.length > maxChars ? `${characters.slice(0, maxChars - 1).join('')}…` : clean;
}

/** A value the service or the agent sent, quoted for a sentence: `"Block 10, Salmiya"`. */
export function quoted(value: unknown, maxChars = MAX_SHOWN_VALUE_CHARS): string {
  return JSON.stringify(plainText(typeof value === 'string' ? value : (JSON.stringify(value) ?? ''), maxChars));
}
