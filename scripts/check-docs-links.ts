/**
 * Checks every link of the built docs site (`docs/site/`, written by typedoc; run by `npm run docs` after
 * it): each relative `href` and `src` must name a file of the site, and each `#fragment` an element id of
 * that page. typedoc's own validation covers `{@link}` tags and the paths of Markdown links, not the
 * headings a link points at. Also checks that every guide in docs/ is a page of the site. Links to other
 * sites are listed by host, not fetched. Exits 1 on a broken link.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

const site = resolve(process.argv[2] ?? 'docs/site');
if (!existsSync(join(site, 'index.html'))) {
  console.error(`docs link check: no ${relative('.', site)}/index.html; run typedoc first`);
  process.exit(1);
}

function files(directory: string): string[] {
  return readdirSync(directory, { withFileTypes: true }).flatMap((entry) => {
    const path = join(directory, entry.name);
    return entry.isDirectory() ? files(path) : [path];
  });
}

const pages = files(site).filter((path) => path.endsWith('.html'));
const idsOf = new Map<string, Set<string>>();
function ids(path: string): Set<string> {
  let found = idsOf.get(path);
  if (found === undefined) {
    const text = readFileSync(path, 'utf8');
    found = new Set(
      [...text.matchAll(/\s(?:id|name)="([^"]*)"/g)].map((match) => decodeEntities(match[1] ?? '')),
    );
    idsOf.set(path, found);
  }
  return found;
}

function decodeEntities(text: string): string {
  return text
    .replaceAll('&quot;', '"')
    .replaceAll('&#39;', "'")
    .replaceAll('&lt;', '<')
    .replaceAll('&gt;', '>')
    .replaceAll('&amp;', '&');
}

const broken: string[] = [];
const external = new Map<string, number>();
let checked = 0;
for (const page of pages) {
  const text = readFileSync(page, 'utf8');
  for (const match of text.matchAll(/\s(href|src)="([^"]*)"/g)) {
    const link = decodeEntities(match[2] ?? '');
    if (/^(?:[a-z][a-z0-9+.-]*:|\/\/)/i.test(link)) {
      if (/^https?:|^\/\//i.test(link)) {
        const host = new URL(link, 'https://x/').host;
        external.set(host, (external.get(host) ?? 0) + 1);
      }
      continue; // mailto:, data:, other sites
    }
    checked += 1;
    const [pathPart = '', fragment] = link.split('#', 2);
    let target =
      pathPart === '' ? page : resolve(dirname(page), decodeURIComponent(pathPart.split('?')[0] ?? ''));
    if (existsSync(target) && statSync(target).isDirectory()) target = join(target, 'index.html');
    const where = `${relative(site, page)}: ${link}`;
    if (!target.startsWith(site) || !existsSync(target)) {
      broken.push(`${where} (no file ${relative(site, target)})`);
      continue;
    }
    // typedoc links an interface with a parent to its place in hierarchy.html, but leaves that place out
    // when the parent is documented under two entries (the main entry's type `Task`, /schemas' `Task`):
    // the link still opens the hierarchy page.
    const typedocHierarchy = relative(site, target) === 'hierarchy.html';
    if (
      fragment &&
      !typedocHierarchy &&
      target.endsWith('.html') &&
      !ids(target).has(decodeURIComponent(fragment))
    ) {
      broken.push(`${where} (no id "${fragment}" in ${relative(site, target)})`);
    }
  }
}

// Every guide is a page: a guide left out of typedoc.json's projectDocuments would be copied as raw Markdown.
const documents = new Set(
  readdirSync(join(site, 'documents')).map((name) => readFileSync(join(site, 'documents', name), 'utf8')),
);
for (const guide of readdirSync('docs').filter((name) => name.endsWith('.md'))) {
  const heading = /^# (.+)$/m.exec(readFileSync(join('docs', guide), 'utf8'))?.[1];
  const title = heading === undefined ? undefined : decodeEntities(heading.replaceAll('`', ''));
  const shown = [...documents].some(
    (html) => title !== undefined && decodeEntities(html.replace(/<[^>]+>/g, '')).includes(title),
  );
  if (!shown)
    broken.push(`docs/${guide}: not a page of the site (add it to projectDocuments in typedoc.json)`);
}

const hosts = [...external].map(([host, count]) => `${host} ${count}`).join(', ');
if (broken.length > 0) {
  console.error(`docs link check: ${broken.length} broken of ${checked} links in ${pages.length} pages`);
  for (const line of broken) console.error(`  ${line}`);
  process.exit(1);
}
console.log(
  `docs link check: ${checked} links in ${pages.length} pages, 0 broken (not fetched: ${hosts || 'none'})`,
);
