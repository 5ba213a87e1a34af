/** Numbers as plain decimal text, for KWD amounts and for numbers read where text was documented. @module */

/**
 * A finite number as plain decimal text, exactly as JavaScript prints it but without an exponent
 * (`1e-7` → `0.0000001`, `1.5e21` → `1500000000000000000000`).
 */
export function decimalText(value: number): string {
  const text = String(value);
  if (!text.includes('e')) return text;
  const [mantissa = '', exponent = '0'] = text.split('e');
  const sign = mantissa.startsWith('-') ? '-' : '';
  const [whole = '', fraction = ''] = mantissa.replace('-', '').split('.');
  const digits = whole + fraction;
  const point = whole.length + Number(exponent);
  if (point <= 0) return `${sign}0.${'0'.repeat(-point)}${digits}`;
  if (point >= digits.length) return `${sign}${digits}${'0'.repeat(point - digits.length)}`;
  return `${sign}${digits.slice(0, point)}.${digits.slice(point)}`;
}
