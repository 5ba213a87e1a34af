/**
 * Versions the two packages together: `npm run release:version -- 0.3.0`.
 *
 * 1. `npm version` (npm's own, with `--workspaces --include-workspace-root`) gives `delivery-task-sdk` and
 *    `delivery-task-tools` the same version; the tools then depend on exactly that SDK version.
 * 2. Each package's `## [Unreleased]` CHANGELOG section becomes `## [<version>] - <date>`, under a new empty
 *    `[Unreleased]`; an empty section stops the release (a version whose CHANGELOG says nothing).
 * Links to files a package does not ship are made absolute at the version's tag when packing
 * (`scripts/pack-files.mjs`), so nothing here rewrites them.
 *
 * changesets (3.0) was tried first: it does not version a workspace root package ("Found changeset for
 * package delivery-task-sdk which is not in the workspace"), and the SDK is the root. `npm run check:package`
 * checks the result on the packed tarballs (`scripts/check-install.ts`).
 * @module
 */
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';

const root = path.resolve(import.meta.dirname, '..');
const version = process.argv[2];
if (version === undefined || !/^\d+\.\d+\.\d+(-[\w.]+)?$/.test(version)) {
  console.error('usage: npm run release:version -- <x.y.z>');
  process.exit(2);
}
const changelogs = ['CHANGELOG.md', 'packages/tools/CHANGELOG.md'];
const date = new Date().toISOString().slice(0, 10);

// Refuse before changing anything: every package must have something to say.
const dated = changelogs.map((file) => {
  const text = readFileSync(path.join(root, file), 'utf8');
  const match =
    /^## \[Unreleased\]\s*\n([\s\S]*?)(?=^## \[)/m.exec(text) ??
    /^## \[Unreleased\]\s*\n([\s\S]*)$/m.exec(text);
  const body = match?.[1] ?? '';
  if (!/^\s*- /m.test(body)) {
    console.error(`${file}: the [Unreleased] section lists no change; nothing to release`);
    process.exit(1);
  }
  return [
    file,
    text.replace(/^## \[Unreleased\]\s*\n/m, `## [Unreleased]\n\n## [${version}] - ${date}\n\n`),
  ] as const;
});

const npm = (...args: string[]) => execFileSync('npm', args, { cwd: root, stdio: 'inherit' });
npm(
  'version',
  version,
  '--workspaces',
  '--include-workspace-root',
  '--no-git-tag-version',
  '--allow-same-version',
  '--no-workspaces-update',
);
npm('pkg', 'set', `dependencies.delivery-task-sdk=${version}`, '-w', 'delivery-task-tools');
for (const [file, text] of dated) writeFileSync(path.join(root, file), text);
// The version the SDK sends in its user-agent (a test keeps it equal to package.json's).
const versionFile = path.join(root, 'src/core/version.ts');
writeFileSync(
  versionFile,
  readFileSync(versionFile, 'utf8').replace(/VERSION = '[^']*'/, `VERSION = '${version}'`),
);

npm('install', '--package-lock-only', '--no-audit', '--no-fund');
console.log(`delivery-task-sdk and delivery-task-tools are ${version}; CHANGELOG sections dated ${date}`);
