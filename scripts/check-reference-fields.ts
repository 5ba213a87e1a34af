/**
 * Checks the built API reference (`docs/site/`; run by `npm run docs` after typedoc): the pages of `Task`,
 * `TaskCreateParams`, `TaskListParams` and `WebhookTask` show every field of their schema with a description.
 * Exits 1 naming each field missing or undescribed.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { Task, TaskCreateParams, TaskListRequestParams, WebhookTask } from '../src/schemas.js';

const site = resolve(process.argv[2] ?? 'docs/site');
/**
 * Each type's page: typedoc documents a name exported by two entries (the main entry's type, /schemas'
 * schema and type) once, as `<entry>.<Name>.html` or, beside the schema's own page, `<Name>-1.html`.
 */
const pages = [
  { name: 'Task', schema: Task },
  { name: 'TaskCreateParams', schema: TaskCreateParams },
  { name: 'TaskListParams', schema: TaskListRequestParams },
  { name: 'WebhookTask', schema: WebhookTask },
];

/** What a type's page lacks: each field of `schema` not listed with a description. */
function missingFields(page: string, schema: { def: { shape: object } }): string[] {
  const html = readFileSync(join(site, page), 'utf8');
  const missing: string[] = [];
  for (const field of Object.keys(schema.def.shape)) {
    // typedoc writes a field's name, its type, then its comment before the next name (signatures list names too).
    const entries = html.split('tsd-kind-property">').filter((entry) => entry.startsWith(`${field}</span>`));
    if (entries.length === 0) missing.push(`${page}: field ${field} not listed`);
    else if (!entries.some((entry) => /<div class="tsd-comment tsd-typography"><p>\S/.test(entry))) {
      missing.push(`${page}: field ${field} undescribed`);
    }
  }
  return missing;
}

const problems: string[] = [];
for (const { name, schema } of pages) {
  const candidates = ['interfaces', 'types'].flatMap((folder) =>
    existsSync(join(site, folder))
      ? readdirSync(join(site, folder))
          .filter((file) => new RegExp(`^delivery-task-sdk(?:_\\w+)?\\.${name}(?:-\\d+)?\\.html$`).test(file))
          .map((file) => `${folder}/${file}`)
      : [],
  );
  if (candidates.length === 0) {
    problems.push(`${name}: no page`);
    continue;
  }
  const results = candidates.map((page) => missingFields(page, schema));
  if (!results.some((missing) => missing.length === 0)) {
    problems.push(
      ...results.reduce((fewest, missing) => (missing.length < fewest.length ? missing : fewest)),
    );
  }
}

if (problems.length > 0) {
  console.error(`reference fields check: ${problems.length} problems\n${problems.join('\n')}`);
  process.exit(1);
}
console.log(`reference fields check: every field of ${pages.length} pages listed and described`);
