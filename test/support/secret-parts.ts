/** Parts of `secret` of 4 characters or more that `text` holds: what a redaction left of a secret. */
export function partsIn(text: string, secret: string): string[] {
  const found: string[] = [];
  for (let length = 4; length <= secret.length; length++)
    for (let start = 0; start + length <= secret.length; start++) {
      const part = secret.slice(start, start + length);
      if (text.includes(part)) found.push(part);
    }
  return found;
}
