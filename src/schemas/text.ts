/** Text checks shared by request validation and path building. */

/** A high surrogate not followed by a low one, or a low surrogate not preceded by a high one (code units, no `u` flag). */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/**
 * True when the text has no unpaired surrogate, so it can be encoded as UTF-8 (in a URL, a JSON body
 * or a header) without being altered or making `encodeURIComponent` throw. Uses
 * `String.prototype.isWellFormed` where the runtime has it.
 */
export function isWellFormedText(text: string): boolean {
  return typeof text.isWellFormed === 'function' ? text.isWellFormed() : !LONE_SURROGATE.test(text);
}
