#!/usr/bin/env node
// What a consumer receives, made at pack time and undone after: `prepack` / `postpack` of both packages,
// run in the package's folder (`node <repo>/scripts/pack-files.mjs prepare [--docs a.md,b.md]`, then
// `restore`).
//
// - `package.json` without what only this repository uses: clean-pkg-json keeps the fields npm, Node.js,
//   TypeScript and bundlers read (no `scripts`, `workspaces`, `allowScripts`, `bundleBudgets`,
//   `devDependencies`).
// - `README.md` without its `<!-- repository-only:start -->` … `end` sections (the contributors' commands).
// - `--docs`: these guides of the repository's `docs/` are copied into the package's `docs/`.
// - In every shipped Markdown file, a relative link to a file the package does not ship becomes an absolute
//   link to that file at this version's tag (`https://github.com/…/blob/v<version>/<path>`); a link to a
//   shipped file stays relative. `scripts/check-install.ts` checks the result from an install.
//
// `prepare` saves the files it changes in `.pack-originals/`; `restore` puts them back and removes the copies.
import { execFileSync } from 'node:child_process';
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';

const REPOSITORY = 'https://github.com/delivery-task/delivery-task-sdk';
const repositoryRoot = path.resolve(import.meta.dirname, '..');
const packageRoot = process.cwd();
const saved = path.join(packageRoot, '.pack-originals');
const [step, ...rest] = process.argv.slice(2);
const docsFlag = rest.indexOf('--docs');
const copiedDocs = docsFlag < 0 ? [] : (rest[docsFlag + 1] ?? '').split(',').filter(Boolean);
const toPosix = (file) => file.split(path.sep).join('/');
const repoPathOf = (file) => toPosix(path.relative(repositoryRoot, file));

function prepare() {
  if (existsSync(saved)) {
    console.error(
      `${saved} exists: an earlier pack did not finish; run "node ${process.argv[1]} restore" first`,
    );
    process.exit(1);
  }
  const dryRun = process.env.npm_config_dry_run === 'true';
  const manifest = JSON.parse(readFileSync('package.json', 'utf8'));
  const shipped = manifest.files ?? [];
  mkdirSync(saved);
  const originals = [];
  const save = (file) => {
    const target = path.join(saved, 'files', path.relative(packageRoot, file));
    mkdirSync(path.dirname(target), { recursive: true });
    copyFileSync(file, target);
    originals.push(path.relative(packageRoot, file));
  };

  // Repository path → package path of every Markdown file the package will hold.
  const held = new Map();
  // npm's `files`: a file is shipped when the last pattern that matches it is not a `!` negation.
  const matches = (packagePath, pattern) =>
    packagePath === pattern ||
    packagePath.startsWith(`${pattern}/`) ||
    path.matchesGlob(packagePath, pattern);
  const isShipped = (packagePath) => {
    let kept = false;
    for (const pattern of shipped) {
      if (pattern.startsWith('!')) {
        if (matches(packagePath, pattern.slice(1))) kept = false;
      } else if (matches(packagePath, pattern)) kept = true;
    }
    return kept;
  };
  const walk = (directory) => {
    for (const entry of readdirSync(directory, { withFileTypes: true })) {
      if (entry.name === 'node_modules' || entry.name === '.pack-originals') continue;
      const full = path.join(directory, entry.name);
      if (entry.isDirectory()) walk(full);
      else {
        const packagePath = toPosix(path.relative(packageRoot, full));
        if (isShipped(packagePath)) held.set(repoPathOf(full), packagePath);
      }
    }
  };
  walk(packageRoot);
  const copies = [];
  for (const name of copiedDocs) {
    const source = path.join(repositoryRoot, 'docs', name);
    if (!existsSync(source)) throw new Error(`--docs: ${source} does not exist`);
    held.set(repoPathOf(source), `docs/${name}`);
    copies.push([source, path.join(packageRoot, 'docs', name)]);
  }

  // clean-pkg-json, then the Markdown files (each read from its repository source).
  const cleaner = createRequire(import.meta.url).resolve('clean-pkg-json/package.json');
  const { bin } = JSON.parse(readFileSync(cleaner, 'utf8'));
  save(path.join(packageRoot, 'package.json'));
  // Cleaned with `--dry` (printed, not written) and renamed over it: a process starting meanwhile (a test
  // beside the pack) reads one whole manifest or the other, never a half-written one.
  const cleaned = execFileSync(
    process.execPath,
    [path.join(path.dirname(cleaner), typeof bin === 'string' ? bin : Object.values(bin)[0]), '--dry'],
    { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] },
  );
  JSON.parse(cleaned);
  if (!dryRun) {
    writeFileSync('package.json.packing', cleaned.endsWith('\n') ? cleaned : `${cleaned}\n`);
    renameSync('package.json.packing', 'package.json');
  }
  if (dryRun) return;
  const version = manifest.version;
  const rewrite = (text, sourceRepoPath, packagePath) =>
    text.replace(/(!?\[[^\]]*\]\(\s*)([^)\s#]+)(#[^)\s]*)?/g, (whole, open, target, anchor = '') => {
      if (/^[a-z][a-z0-9+.-]*:/i.test(target)) return whole;
      const targetRepoPath = path.posix.normalize(
        path.posix.join(path.posix.dirname(sourceRepoPath), target),
      );
      const inPackage = held.get(targetRepoPath);
      if (inPackage !== undefined) {
        return `${open}${path.posix.relative(path.posix.dirname(packagePath), inPackage) || path.posix.basename(inPackage)}${anchor}`;
      }
      // An image from `raw` (a `blob` page is HTML), a folder as a `tree`, a file as a `blob` page.
      const kind = open.startsWith('!')
        ? 'raw'
        : !path.posix.basename(targetRepoPath).includes('.')
          ? 'tree'
          : 'blob';
      return `${open}${REPOSITORY}/${kind}/v${version}/${targetRepoPath}${anchor}`;
    });
  for (const [source, target] of copies) {
    mkdirSync(path.dirname(target), { recursive: true });
    writeFileSync(
      target,
      rewrite(readFileSync(source, 'utf8'), repoPathOf(source), toPosix(path.relative(packageRoot, target))),
    );
  }
  writeFileSync(
    path.join(saved, 'copies.json'),
    JSON.stringify(copies.map(([, target]) => path.relative(packageRoot, target))),
  );
  for (const [repoPath, packagePath] of held) {
    if (
      !packagePath.endsWith('.md') ||
      copies.some(([, target]) => toPosix(path.relative(packageRoot, target)) === packagePath)
    )
      continue;
    const file = path.join(packageRoot, packagePath);
    let text = readFileSync(file, 'utf8');
    if (packagePath === 'README.md') {
      text = text
        .replace(/\n?<!-- repository-only:start -->[\s\S]*?<!-- repository-only:end -->\n?/g, '\n')
        .replace(/\n{3,}/g, '\n\n');
    }
    const next = rewrite(text, repoPath, packagePath);
    if (next !== readFileSync(file, 'utf8')) {
      save(file);
      writeFileSync(`${file}.packing`, next);
      renameSync(`${file}.packing`, file);
    }
  }
  writeFileSync(path.join(saved, 'originals.json'), JSON.stringify(originals));
}

function restore() {
  if (!existsSync(saved)) return;
  const read = (name) =>
    existsSync(path.join(saved, name)) ? JSON.parse(readFileSync(path.join(saved, name), 'utf8')) : [];
  for (const file of read('copies.json')) rmSync(path.join(packageRoot, file), { force: true });
  const originals = read('originals.json');
  for (const file of originals.length > 0 ? originals : ['package.json']) {
    const copy = path.join(saved, 'files', file);
    // Renamed into place, as `prepare` does: never half-written.
    if (existsSync(copy)) renameSync(copy, path.join(packageRoot, file));
  }
  rmSync(saved, { recursive: true, force: true });
}

if (step === 'prepare') prepare();
else if (step === 'restore') restore();
else {
  console.error('usage: node scripts/pack-files.mjs prepare [--docs a.md,b.md] | restore');
  process.exit(2);
}
