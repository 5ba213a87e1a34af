/**
 * Writes the OpenAPI 3.1 document of the service to `dist/openapi.json` (the package export
 * `delivery-task-sdk/openapi.json`), built from the SDK's zod schemas. Runs after tsup in `npm run build`
 * (tsup cleans `dist`). `--out <file>` writes elsewhere.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { parseArgs } from 'node:util';
import { buildOpenApiDocument, serializeOpenApiDocument } from './openapi/document.js';

const { values } = parseArgs({ options: { out: { type: 'string', default: 'dist/openapi.json' } } });
const file = values.out;
const text = serializeOpenApiDocument(buildOpenApiDocument());
mkdirSync(dirname(file), { recursive: true });
writeFileSync(file, text);
console.log(`openapi: wrote ${file} (${Buffer.byteLength(text)} bytes)`);
