/**
 * The API report of each published entry of delivery-task-sdk (`docs/api-reports/*.api.md`), made by
 * API Extractor from the built declarations (`npm run build` first). `npm run check:api` fails when an
 * entry's surface differs from its committed report; `npm run api:update` rewrites the reports, to be
 * reviewed and committed with the change that caused them. Two things in a report are not the surface, and
 * reports are compared without them: the order of a union's string literals (the compiler prints an
 * inferred union, a zod enum's, in the order it created the types, which differs between builds of the same
 * source), and the line and column in `dist` that a note names (they move with every doc comment).
 */
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Extractor, ExtractorConfig, ExtractorLogLevel } from '@microsoft/api-extractor';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const REPORTS = `${ROOT}docs/api-reports`;
const TEMP = `${ROOT}.api-reports-temp`;
const ENTRIES = ['index', 'webhooks', 'kwd', 'schemas', 'testing', 'redis', 'postgres', 'internal'] as const;
const update = process.argv.includes('--update');

/**
 * `text` with every run of union members joined by `|` sorted (string literals, and the `(string & {})` of an
 * open union among them), and without `dist` positions.
 */
function comparable(text: string): string {
  const member = String.raw`(?:"(?:[^"\\\n]|\\.)*"|\(string & \{\}\))`;
  const run = new RegExp(`${member}(?:\\s*\\|\\s*${member})+`, 'g');
  const members = new RegExp(member, 'g');
  return text
    .replace(run, (found) => (found.match(members) ?? []).sort().join(' | '))
    .replace(/(dist\/[\w.-]+\.d\.ts):\d+:\d+/g, '$1');
}

/** True when the report just made differs from the committed one in more than union order. */
function differs(name: string): boolean {
  const committed = `${REPORTS}/${name}.api.md`;
  const made = `${TEMP}/${name}.api.md`;
  if (!existsSync(committed) || !existsSync(made)) return true;
  return comparable(readFileSync(committed, 'utf8')) !== comparable(readFileSync(made, 'utf8'));
}

mkdirSync(REPORTS, { recursive: true });
mkdirSync(TEMP, { recursive: true });
let failed = 0;
for (const entry of ENTRIES) {
  const name = entry === 'index' ? 'delivery-task-sdk' : `delivery-task-sdk-${entry}`;
  const config = ExtractorConfig.prepare({
    configObject: {
      projectFolder: ROOT,
      mainEntryPointFilePath: `${ROOT}dist/${entry}.d.ts`,
      compiler: { tsconfigFilePath: `${ROOT}tsconfig.json` },
      apiReport: { enabled: true, reportFileName: name, reportFolder: REPORTS, reportTempFolder: TEMP },
      docModel: { enabled: false },
      dtsRollup: { enabled: false },
      tsdocMetadata: { enabled: false },
      messages: {
        compilerMessageReporting: { default: { logLevel: ExtractorLogLevel.Warning } },
        extractorMessageReporting: {
          default: { logLevel: ExtractorLogLevel.Warning },
          // A type a signature names but the entry does not export is listed in the report instead.
          'ae-forgotten-export': { logLevel: ExtractorLogLevel.None, addToApiReportFile: true },
          'ae-missing-release-tag': { logLevel: ExtractorLogLevel.None },
          // Members' TSDoc is checked by typedoc (`npm run docs`); links across entries resolve there.
          'ae-undocumented': { logLevel: ExtractorLogLevel.None },
          'ae-unresolved-link': { logLevel: ExtractorLogLevel.None },
        },
        tsdocMessageReporting: { default: { logLevel: ExtractorLogLevel.None } },
      },
    },
    configObjectFullPath: `${ROOT}api-extractor.json`,
    packageJsonFullPath: `${ROOT}package.json`,
  });
  const result = Extractor.invoke(config, {
    localBuild: update,
    messageCallback: (message) => {
      message.handled = true;
      if (message.logLevel === ExtractorLogLevel.Warning || message.logLevel === ExtractorLogLevel.Error) {
        console.error(`${entry}: ${message.text}`);
      }
    },
  });
  const changed = result.apiReportChanged && (update || differs(name));
  // `succeeded` is false for any report change, union order and positions too: errors are counted instead.
  if (result.errorCount > 0 || (changed && !update)) {
    failed++;
    console.error(
      changed
        ? `${entry}: the surface differs from docs/api-reports/${name}.api.md; run npm run api:update, review and commit`
        : `${entry}: API Extractor failed (${result.errorCount} errors)`,
    );
  } else {
    console.log(`${entry}: ${changed ? 'report updated' : 'report matches'}`);
  }
}
process.exitCode = failed === 0 ? 0 : 1;
