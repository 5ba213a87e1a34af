/**
 * Validates `dist/openapi.json` (or the file given) against the OpenAPI schemas with
 * @seriousme/openapi-schema-validator, which also checks that every `$ref` resolves, and prints one line:
 * the version, paths, operations, webhooks, schemas and bytes. For the built file it also checks that the
 * tools' built executable (`packages/tools/dist/cli.js openapi`) prints the same bytes. Exit code 1 on any error. Run after
 * `npm run build` (`npm run check:openapi`).
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { Validator } from '@seriousme/openapi-schema-validator';

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];

const BUILT = 'dist/openapi.json';
const file = process.argv[2] ?? BUILT;
const text = readFileSync(file, 'utf8');
const document = JSON.parse(text) as {
  paths?: Record<string, Record<string, unknown>>;
  webhooks?: Record<string, Record<string, unknown>>;
  components?: { schemas?: Record<string, unknown> };
};
const validator = new Validator();
const result = await validator.validate(document);
if (!result.valid) {
  console.error(`openapi: ${file} is not a valid OpenAPI document`);
  console.error(typeof result.errors === 'string' ? result.errors : JSON.stringify(result.errors, null, 2));
  process.exit(1);
}
if (file === BUILT) {
  const printed = spawnSync(process.execPath, ['packages/tools/dist/cli.js', 'openapi'], {
    encoding: 'utf8',
    maxBuffer: 16 * 1024 * 1024,
  });
  if (printed.status !== 0 || printed.stdout !== text) {
    console.error(
      `openapi: packages/tools/dist/cli.js openapi (exit ${String(printed.status)}) does not print ${BUILT}: ${printed.stderr}`,
    );
    process.exit(1);
  }
}
const paths = Object.values(document.paths ?? {});
const operations = paths.flatMap((item) => Object.keys(item).filter((key) => METHODS.includes(key))).length;
const webhooks = Object.keys(document.webhooks ?? {}).length;
const schemas = Object.keys(document.components?.schemas ?? {}).length;
console.log(
  `openapi: ${file} valid OpenAPI ${validator.version}, 0 errors — ${paths.length} paths, ${operations} operations, ${webhooks} webhooks, ${schemas} schemas, ${Buffer.byteLength(text)} bytes`,
);
