/**
 * Every reference a merchant can follow from an install resolves: run against a project where the packed
 * tarballs are installed (`scripts/check-consumer.sh` does), it reads each installed package's shipped
 * Markdown (links, images, `#anchors`), its `.d.ts` and `.js` files (`docs/….md`, `docs/….md "Section"`,
 * `README "Section"`) and the `delivery-task` command's `--help` texts (`docs/….md`), and fails on any that
 * resolves to nothing inside the package. Absolute links into this repository must name the installed
 * version's tag (`/blob/v<version>/`) and a path that exists in the repository.
 *
 * Usage: `tsx scripts/check-installed-references.ts <project dir>`; exits 1 listing each broken reference.
 * @module
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';

const REPOSITORY = 'https://github.com/delivery-task/delivery-task-sdk/';
const repositoryRoot = path.resolve(import.meta.dirname, '..');
const project = process.argv[2];
if (project === undefined) {
  console.error('usage: tsx scripts/check-installed-references.ts <project dir with the tarballs installed>');
  process.exit(2);
}

const problems: string[] = [];
let checked = 0;

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens. */
function slugOf(heading: string): string {
  const text = heading
    .replace(/`([^`]*)`/g, '$1')
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/<[^>]+>/g, '')
    .trim()
    .toLowerCase();
  return text.replace(/[^\p{L}\p{N}\s_-]/gu, '').replace(/\s/g, '-');
}

/** Markdown with fenced code blocks blanked (line numbers kept) and inline code removed. */
function proseOf(markdown: string): string {
  let fenced = false;
  return markdown
    .split('\n')
    .map((line) => {
      if (/^\s*(```|~~~)/.test(line)) {
        fenced = !fenced;
        return '';
      }
      return fenced ? '' : line.replace(/`[^`]*`/g, '``');
    })
    .join('\n');
}

const headingCache = new Map<string, { anchors: Set<string>; titles: Set<string> }>();

/** The anchors and heading texts of a Markdown file. */
function headingsOf(file: string): { anchors: Set<string>; titles: Set<string> } {
  const cached = headingCache.get(file);
  if (cached !== undefined) return cached;
  const anchors = new Set<string>();
  const titles = new Set<string>();
  const seen = new Map<string, number>();
  const prose = proseOf(readFileSync(file, 'utf8'));
  for (const match of prose.matchAll(/^#{1,6}\s+(.+?)\s*#*\s*$/gm)) {
    const title = (match[1] as string).replace(/`/g, '');
    const base = slugOf(match[1] as string);
    const count = seen.get(base) ?? 0;
    seen.set(base, count + 1);
    anchors.add(count === 0 ? base : `${base}-${count}`);
    titles.add(title.replace(/\[([^\]]*)\]\([^)]*\)/g, '$1').trim());
  }
  for (const match of prose.matchAll(/<a\s+(?:id|name)="([^"]+)"/g)) anchors.add(match[1] as string);
  // A table row's first cell (`| webhook event kinds | … |`) is cited as a section too.
  for (const match of prose.matchAll(/^\|\s*([^|\n]+?)\s*\|/gm))
    titles.add((match[1] as string).replace(/`/g, '').trim());
  // A bold label opening a paragraph or list item (`- **Shifting pages.** …`) is cited as a section too.
  for (const match of prose.matchAll(/^\s*(?:[-*]\s+)?\*\*([^*\n]+?)\.?\*\*/gm))
    titles.add((match[1] as string).trim());
  const result = { anchors, titles };
  headingCache.set(file, result);
  return result;
}

function filesUnder(directory: string, keep: (file: string) => boolean): string[] {
  const found: string[] = [];
  for (const entry of readdirSync(directory, { withFileTypes: true })) {
    const full = path.join(directory, entry.name);
    if (entry.isDirectory()) {
      if (entry.name !== 'node_modules') found.push(...filesUnder(full, keep));
    } else if (keep(full)) found.push(full);
  }
  return found;
}

/** An absolute link into this repository: the installed version's tag and an existing path. */
function checkRepositoryUrl(url: string, version: string, where: string): void {
  const rest = url.slice(REPOSITORY.length);
  const match = /^(?:blob|tree|raw)\/([^/]+)\/([^#?]*)/.exec(rest);
  if (match === null) return; // the repository's home, issues, releases
  const [, ref, target] = match as unknown as [string, string, string];
  if (ref !== `v${version}`)
    problems.push(`${where}: ${url} names ${ref}, not the installed version's tag v${version}`);
  if (!existsSync(path.join(repositoryRoot, decodeURIComponent(target)))) {
    problems.push(`${where}: ${url} names ${target}, which is not in the repository`);
  }
}

/** A link target inside a package, relative to `from` (a file). */
function checkTarget(target: string, from: string, packageRoot: string, where: string): void {
  checked++;
  const [file = '', anchor] = target.split('#') as [string, string | undefined];
  const resolved = file === '' ? from : path.resolve(path.dirname(from), decodeURIComponent(file));
  if (!resolved.startsWith(packageRoot + path.sep) && resolved !== packageRoot) {
    problems.push(`${where}: ${target} leads outside the package`);
    return;
  }
  if (!existsSync(resolved)) {
    problems.push(`${where}: ${target} is not in the package`);
    return;
  }
  if (
    anchor !== undefined &&
    anchor !== '' &&
    resolved.endsWith('.md') &&
    !headingsOf(resolved).anchors.has(anchor)
  ) {
    problems.push(`${where}: ${target}: no heading #${anchor} in ${path.relative(packageRoot, resolved)}`);
  }
}

function hasSection(file: string, section: string): boolean {
  const wanted = section.replace(/`/g, '').trim();
  return [...headingsOf(file).titles].some((title) => title === wanted || title.startsWith(`${wanted} (`));
}

/** A section named in quotes after a Markdown file (`docs/x.md "Section"`, `README "Section"`). */
function checkSection(file: string, section: string, packageRoot: string, where: string): void {
  checked++;
  if (!existsSync(file)) return; // reported as a missing file already
  if (!hasSection(file, section)) {
    problems.push(`${where}: no section "${section}" in ${path.relative(packageRoot, file)}`);
  }
}

function checkMarkdown(file: string, packageRoot: string, version: string): void {
  const prose = proseOf(readFileSync(file, 'utf8'));
  const lines = prose.split('\n');
  lines.forEach((line, index) => {
    const where = `${path.relative(project as string, file)}:${index + 1}`;
    const targets = [
      ...[...line.matchAll(/!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)].map(
        (m) => m[1] as string,
      ),
      ...[...line.matchAll(/^\s*\[[^\]]+\]:\s*<?(\S+?)>?(?:\s|$)/g)].map((m) => m[1] as string),
      ...[...line.matchAll(/<(?:img|a|source)\s[^>]*?(?:src|href|srcset)="([^"]+)"/g)].map(
        (m) => m[1] as string,
      ),
    ];
    for (const target of targets) {
      if (target.startsWith(REPOSITORY)) checkRepositoryUrl(target, version, where);
      else if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue;
      else checkTarget(target, file, packageRoot, where);
    }
  });
}

/**
 * `docs/….md`, with an anchor or a quoted section, and `README "Section"`, in shipped code or help text. The
 * tools carry the SDK's code and its messages: theirs resolve in the tools' package or in the SDK installed
 * as its dependency (`roots`, tried in order).
 */
function checkCitations(text: string, roots: readonly string[], where: string): void {
  const cite = (file: string, anchor: string | undefined, section: string | undefined) => {
    const root =
      roots.find(
        (candidate) =>
          existsSync(path.join(candidate, file)) &&
          (section === undefined || hasSection(path.join(candidate, file), section)),
      ) ?? (roots[0] as string);
    checkTarget(`${file}${anchor ?? ''}`, path.join(root, 'package.json'), root, where);
    if (section !== undefined) checkSection(path.join(root, file), section, root, where);
  };
  for (const match of text.matchAll(
    /(?<![\w/.-])(docs\/[\w./-]+\.md)(#[\w-]+)?(?:[,:]?\s*\(?"([^"\n]{2,80})")?/g,
  )) {
    const [, file, anchor, section] = match as unknown as [
      string,
      string,
      string | undefined,
      string | undefined,
    ];
    cite(file, anchor, section);
  }
  for (const match of text.matchAll(/\bREADME,? "([^"\n]{2,80})"/g))
    cite('README.md', undefined, match[1] as string);
  // A guide of the other package, named with it (`delivery-task-tools/docs/sandbox.md "Bounds"`).
  for (const match of text.matchAll(
    /\b(delivery-task-(?:sdk|tools))\/(docs\/[\w./-]+\.md)(#[\w-]+)?(?:[,:]?\s*\(?"([^"\n]{2,80})")?/g,
  )) {
    const [, name, file, anchor, section] = match as unknown as [
      string,
      string,
      string,
      string | undefined,
      string | undefined,
    ];
    const root = path.join(modules, name);
    checkTarget(`${file}${anchor ?? ''}`, path.join(root, 'package.json'), root, where);
    if (section !== undefined) checkSection(path.join(root, file), section, root, where);
  }
}

const modules = path.join(project, 'node_modules');
const rootsOf = (name: string): string[] =>
  name === 'delivery-task-tools'
    ? [path.join(modules, name), path.join(modules, 'delivery-task-sdk')]
    : [path.join(modules, name)];
const packages = ['delivery-task-sdk', 'delivery-task-tools'].filter((name) =>
  existsSync(path.join(modules, name)),
);
if (packages.length === 0) {
  console.error(`no delivery-task package is installed in ${project}`);
  process.exit(2);
}
for (const name of packages) {
  const packageRoot = path.join(modules, name);
  const { version } = JSON.parse(readFileSync(path.join(packageRoot, 'package.json'), 'utf8')) as {
    version: string;
  };
  for (const file of filesUnder(packageRoot, (file) => file.endsWith('.md')))
    checkMarkdown(file, packageRoot, version);
  for (const file of filesUnder(
    packageRoot,
    (file) => /\.(d\.c?ts|c?js)$/.test(file) && statSync(file).size < 4e6,
  )) {
    checkCitations(readFileSync(file, 'utf8'), rootsOf(name), path.relative(project, file));
  }
}

// The command's help texts: every subcommand the top-level help names.
const bin = path.join(modules, '.bin', 'delivery-task');
if (existsSync(bin)) {
  const help = (args: string[]) =>
    execFileSync(bin, args, { encoding: 'utf8', cwd: project, timeout: 30_000 });
  const top = help(['--help']);
  const commands = new Set(['sandbox', 'mcp', 'openapi', 'estimate', 'branches', 'tasks', 'wallet']);
  for (const match of top.matchAll(/^\s{2,}([a-z][a-z-]+)\b/gm)) commands.add(match[1] as string);
  checkCitations(top, rootsOf('delivery-task-tools'), 'delivery-task --help');
  for (const command of commands) {
    let text: string;
    try {
      text = help([command, '--help']);
    } catch {
      continue; // not a command
    }
    checkCitations(text, rootsOf('delivery-task-tools'), `delivery-task ${command} --help`);
  }
}

// The release: one version for both, the tools on exactly that SDK, a CHANGELOG section for it in each,
// and a consumer's manifest and README (nothing only this repository uses).
const REPOSITORY_FIELDS = ['workspaces', 'allowScripts', 'bundleBudgets', 'devDependencies', 'overrides'];
const INSTALL_HOOKS = new Set(['preinstall', 'install', 'postinstall']);
const versions = new Map<string, string>();
for (const name of packages) {
  const packageRoot = path.join(modules, name);
  const manifest = JSON.parse(readFileSync(path.join(packageRoot, 'package.json'), 'utf8')) as Record<
    string,
    unknown
  >;
  const version = String(manifest.version);
  versions.set(name, version);
  for (const field of REPOSITORY_FIELDS) {
    if (field in manifest)
      problems.push(`${name}/package.json: carries "${field}", which only the repository uses`);
  }
  const scripts = Object.keys((manifest.scripts as Record<string, string> | undefined) ?? {});
  if (scripts.some((script) => !INSTALL_HOOKS.has(script))) {
    problems.push(`${name}/package.json: carries scripts (${scripts.join(', ')})`);
  }
  checked += REPOSITORY_FIELDS.length + 1;
  const changelog = path.join(packageRoot, 'CHANGELOG.md');
  if (!existsSync(changelog)) {
    problems.push(`${name}: no CHANGELOG.md in the package`);
  } else {
    const text = readFileSync(changelog, 'utf8');
    const escaped = version.replace(/\./g, '\\.');
    const section = new RegExp(
      `^## \\[${escaped}\\][^\\n]*\\n([\\s\\S]*?)(?=^## \\[|(?![\\s\\S]))`,
      'm',
    ).exec(text);
    if (section === null)
      problems.push(`${name}/CHANGELOG.md: no section for the installed version ${version}`);
    else if (!/^\s*- /m.test(section[1] as string))
      problems.push(`${name}/CHANGELOG.md: the ${version} section is empty`);
  }
  const readme = readFileSync(path.join(packageRoot, 'README.md'), 'utf8');
  if (readme.includes('repository-only') || /^## Developing this SDK/m.test(readme)) {
    problems.push(`${name}/README.md: carries the repository's contributors' section`);
  }
}
const sdkVersion = versions.get('delivery-task-sdk');
const toolsVersion = versions.get('delivery-task-tools');
if (sdkVersion !== undefined && toolsVersion !== undefined) {
  checked += 2;
  if (sdkVersion !== toolsVersion)
    problems.push(`delivery-task-sdk is ${sdkVersion}, delivery-task-tools ${toolsVersion}`);
  const toolsManifest = JSON.parse(
    readFileSync(path.join(modules, 'delivery-task-tools', 'package.json'), 'utf8'),
  ) as {
    dependencies?: Record<string, string>;
  };
  const wanted = toolsManifest.dependencies?.['delivery-task-sdk'];
  if (wanted !== toolsVersion) {
    problems.push(
      `delivery-task-tools ${toolsVersion} depends on delivery-task-sdk ${wanted}, not exactly ${toolsVersion}`,
    );
  }
}

if (problems.length > 0) {
  for (const problem of problems) console.error(`reference check: ${problem}`);
  console.error(`${problems.length} of ${checked} references resolve to nothing`);
  process.exit(1);
}
console.log(
  `reference check passed: ${checked} references of ${packages.join(', ')} resolve inside the install`,
);
