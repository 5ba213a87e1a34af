#!/usr/bin/env bash
# What `npm publish` would upload, checked before it is: the LICENSE is in the tarball, the registry
# metadata (repository, homepage, bugs, keywords, license) is filled in, runtime dependencies are caret
# ranges the lockfile agrees with, and every source map shipped
# points at files that are shipped too (or no map is shipped), and the unpacked package stays within 1.7 MB. Prints the tarball's size (packed and
# unpacked bytes, file count) so CI logs show it grow. Run after `npm run build`.
set -euo pipefail
report="$(mktemp)"
trap 'rm -f "$report"' EXIT
npm pack --dry-run --json --ignore-scripts 2>/dev/null >"$report"

# npm publish's own manifest checks: it fixes what it finds wrong on the fly ("npm auto-corrected some
# errors in your package.json", e.g. a `bin` path written `./dist/cli.js`), which would publish a
# manifest that differs from the repository's. Any such correction fails here.
published="$(npm publish --dry-run --ignore-scripts --tag check-publish 2>&1)" || { echo "$published" >&2; exit 1; }
if grep -q "auto-corrected\|errors corrected" <<<"$published"; then
  grep -A20 "auto-corrected" <<<"$published" | grep "npm warn publish" >&2
  echo "publish check: npm publish corrected package.json; fix it in the file (npm pkg fix)" >&2
  exit 1
fi
node - "$report" <<'JS'
const { readFileSync, existsSync } = require('node:fs');
const path = require('node:path');
const [pack] = JSON.parse(readFileSync(process.argv[2], 'utf8'));
const manifest = JSON.parse(readFileSync('package.json', 'utf8'));
const shipped = new Set(pack.files.map((file) => file.path));
const problems = [];

if (!shipped.has('LICENSE')) problems.push('LICENSE is not in the tarball (add it to "files")');
if (!existsSync('LICENSE') || !/^MIT License/.test(readFileSync('LICENSE', 'utf8'))) {
  problems.push('LICENSE is missing or is not the MIT text package.json names');
}
if (manifest.license !== 'MIT') problems.push(`license is ${JSON.stringify(manifest.license)}, expected "MIT"`);
const repository = manifest.repository;
if (typeof repository !== 'object' || repository?.type !== 'git' || !/^git\+https:\/\/github\.com\/.+\.git$/.test(repository.url ?? '')) {
  problems.push('repository must be { type: "git", url: "git+https://github.com/<owner>/<name>.git" } (provenance checks it)');
}
if (typeof manifest.homepage !== 'string' || !manifest.homepage.startsWith('https://')) problems.push('homepage is missing');
if (typeof manifest.bugs?.url !== 'string' || !manifest.bugs.url.startsWith('https://')) problems.push('bugs.url is missing');
if (!Array.isArray(manifest.keywords) || manifest.keywords.length === 0) problems.push('keywords are missing');

// Runtime dependencies as caret ranges: an exact pin makes every app with another 4.x of zod install a
// second copy. The lockfile's root entry must list the same ranges (npm ci fails otherwise).
const lockedRoot = JSON.parse(readFileSync('package-lock.json', 'utf8')).packages?.['']?.dependencies ?? {};
for (const [name, range] of Object.entries(manifest.dependencies ?? {})) {
  if (!/^\^\d+\.\d+\.\d+$/.test(range)) problems.push(`dependency ${name} is ${JSON.stringify(range)}, expected a caret range (^x.y.z)`);
  if (lockedRoot[name] !== range) problems.push(`package-lock.json has ${name}@${JSON.stringify(lockedRoot[name])}, package.json ${JSON.stringify(range)}: run npm install --package-lock-only`);
}

// Source maps: each `sources` entry, resolved against the map's own folder, must be a shipped file.
const maps = [...shipped].filter((file) => file.endsWith('.map'));
for (const map of maps) {
  const { sources = [], sourceRoot = '' } = JSON.parse(readFileSync(map, 'utf8'));
  for (const source of sources) {
    const target = path.posix.normalize(path.posix.join(path.posix.dirname(map), sourceRoot, source));
    if (!shipped.has(target)) problems.push(`${map} points at ${source}, which is not shipped (${target})`);
  }
}

// The package a merchant installs, guides included, stays within 1.7 MB unpacked (npm's own figure): the CommonJS webhooks entry carries its own copy of the modules it shares with the main entry.
// 1 651 658 bytes in 0.2.0: each CommonJS entry carries the options' schemas and their reader, and the
// internal entry the operations table (about 20 KB) that the sandbox's operation names come from.
const MAX_UNPACKED_BYTES = 1_700_000;
if (pack.unpackedSize > MAX_UNPACKED_BYTES) {
  problems.push(`the package is ${pack.unpackedSize} bytes unpacked, over ${MAX_UNPACKED_BYTES}`);
}
const kib = (bytes) => `${(bytes / 1024).toFixed(1)} KiB`;
console.log(
  `tarball ${pack.filename}: ${pack.size} bytes packed (${kib(pack.size)}), ${pack.unpackedSize} bytes unpacked (${kib(pack.unpackedSize)}), ${pack.entryCount} files, ${maps.length} source maps`,
);
if (problems.length > 0) {
  for (const problem of problems) console.error(`publish check: ${problem}`);
  process.exit(1);
}
console.log('publish check passed');
JS
