/** Text checks shared by request validation and path building. */

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** True when the text has no unpaired surrogate, so it has a UTF-8 form (URL, JSON body, header). */
export function isWellFormedText(text: string): boolean {
  return typeof text.isWellFormed === 'function' ? text.isWellFormed() : !LONE_SURROGATE.test(text);
}
