import { findJsonSyntaxError } from './src/cli/json-syntax.js';
for (const [n, t] of [['deep', '['.repeat(500000) + ']'.repeat(500000)], ['deep open', '['.repeat(1<<20)], ['ws', ' '.repeat(1<<20)], ['str', '"' + 'a'.repeat(1<<20)], ['nums', '[' + '1,'.repeat(500000) + ']'], ['objs', '{"a":'.repeat(200000)]] as const) {
  const s = performance.now(); const r = findJsonSyntaxError(t); console.log(n, (performance.now() - s).toFixed(1), JSON.stringify(r)?.slice(0, 80));
}
