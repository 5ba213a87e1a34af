/**
 * Checks the built package: the main entry (ESM and CJS) never loads msw, and the testing entry does.
 * Run after `npm run build`.
 */
import { readFileSync } from 'node:fs';

const failures: string[] = [];
for (const file of ['dist/index.js', 'dist/index.cjs']) {
  const source = readFileSync(file, 'utf8');
  if (/["']msw(\/[^"']*)?["']/.test(source)) failures.push(`${file} references msw`);
  console.log(
    `${file}: ${(source.length / 1024).toFixed(1)} KiB, msw ${/["']msw/.test(source) ? 'present' : 'absent'}`,
  );
}
for (const file of ['dist/testing.js', 'dist/testing.cjs']) {
  if (!/["']msw/.test(readFileSync(file, 'utf8'))) failures.push(`${file} does not load msw`);
}
if (failures.length > 0) {
  console.error(failures.join('\n'));
  process.exit(1);
}
console.log('bundle check passed');
