/**
 * The layout of both packages' sources, read from their imports (static, type-only, re-exports and
 * `import()`): the SDK's ground floor (`src/schemas`: the service's vocabulary) imports nothing above it,
 * the table of operations stands on it alone, the tools reach the SDK only through its published entries,
 * and no import runs in a circle, between files or between rooms (a room is a top-level folder or file of
 * a `src`), so every import points down a floor. No file is over 400 lines: each holds one idea.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const GROUND = 'schemas';
const OPERATIONS = 'core/operations.ts';
/** The send stage of the request pipeline: the one caller of `Transport.send`. */
const SEND_STAGE = 'internal/send-operation.ts';
/** Packages the ground floor may import. */
const GROUND_PACKAGES = new Set(['zod/mini']);

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sourceFiles(path);
    return /\.tsx?$/.test(name) && !name.endsWith('.d.ts') ? [path] : [];
  });
}

/** `src`-relative path with `/` separators. */
const relativeTo = (src: string, path: string): string => relative(src, path).split(sep).join('/');

function resolveRelative(src: string, importer: string, specifier: string): string {
  const fromSrc = (path: string): string => relativeTo(src, path);
  const base = join(dirname(importer), specifier).replace(/\.(js|ts)x?$/, '');
  for (const candidate of [`${base}.ts`, `${base}.tsx`, join(base, 'index.ts')]) {
    if (existsSync(candidate) && !relativeTo(src, candidate).startsWith('..')) return fromSrc(candidate);
  }
  throw new Error(`${fromSrc(importer)} imports ${specifier}, which is not a file of src`);
}

interface Imports {
  /** `src`-relative files this file imports. */
  readonly files: readonly string[];
  /** Bare specifiers (packages and `node:` modules). */
  readonly packages: readonly string[];
}

function readImports(src: string): Map<string, Imports> {
  const graph = new Map<string, Imports>();
  for (const file of sourceFiles(src)) {
    const { importedFiles } = ts.preProcessFile(readFileSync(file, 'utf8'), true, true);
    const specifiers = importedFiles.map((entry) => entry.fileName);
    graph.set(relativeTo(src, file), {
      files: specifiers.filter((s) => s.startsWith('.')).map((s) => resolveRelative(src, file, s)),
      packages: specifiers.filter((s) => !s.startsWith('.')),
    });
  }
  return graph;
}

/** The circles of a directed graph (its strongly connected components of two or more nodes, or a self-loop). */
function circles(edges: ReadonlyMap<string, ReadonlySet<string>>): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (node: string): void => {
    index.set(node, index.size);
    low.set(node, index.get(node) ?? 0);
    stack.push(node);
    onStack.add(node);
    for (const next of edges.get(node) ?? []) {
      if (!index.has(next)) {
        visit(next);
        low.set(node, Math.min(low.get(node) ?? 0, low.get(next) ?? 0));
      } else if (onStack.has(next)) {
        low.set(node, Math.min(low.get(node) ?? 0, index.get(next) ?? 0));
      }
    }
    if (low.get(node) !== index.get(node)) return;
    const component: string[] = [];
    let member: string | undefined;
    do {
      member = stack.pop();
      if (member === undefined) break;
      onStack.delete(member);
      component.push(member);
    } while (member !== node);
    if (component.length > 1 || edges.get(node)?.has(node)) found.push(component.sort());
  };
  for (const node of edges.keys()) if (!index.has(node)) visit(node);
  return found;
}

/** A top-level folder or file of `src`: `core`, `kwd`, `index.node`. */
const roomOf = (file: string): string =>
  file.includes('/') ? file.slice(0, file.indexOf('/')) : file.replace(/\.tsx?$/, '');

const SDK_SRC = join(ROOT, 'src');
const TOOLS_SRC = join(ROOT, 'packages/tools/src');
const sdkGraph = readImports(SDK_SRC);
const rootPackage = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
  exports: Record<string, unknown>;
};
/** What `delivery-task-sdk` publishes: `delivery-task-sdk`, `delivery-task-sdk/testing`, … */
const PUBLISHED = new Set(Object.keys(rootPackage.exports).map((key) => `delivery-task-sdk${key.slice(1)}`));

describe('structure of the SDK (src)', () => {
  it(`the ground floor (src/${GROUND}) imports nothing outside itself but ${[...GROUND_PACKAGES].join(', ')}`, () => {
    const upward: string[] = [];
    for (const [file, { files, packages }] of sdkGraph) {
      if (roomOf(file) !== GROUND) continue;
      for (const target of files) if (roomOf(target) !== GROUND) upward.push(`${file} -> ${target}`);
      for (const name of packages) if (!GROUND_PACKAGES.has(name)) upward.push(`${file} -> ${name}`);
    }
    expect(upward).toEqual([]);
  });

  it(`the table of operations (src/${OPERATIONS}) imports only the ground floor`, () => {
    const imports = sdkGraph.get(OPERATIONS);
    expect(imports).toBeDefined();
    expect(imports?.files.filter((target) => roomOf(target) !== GROUND)).toEqual([]);
    expect(imports?.packages.filter((name) => !GROUND_PACKAGES.has(name))).toEqual([]);
  });

  it(`sends every request of the client through the one pipeline (src/${SEND_STAGE})`, () => {
    const senders = sourceFiles(SDK_SRC)
      .filter((file) => /\.send\(/.test(readFileSync(file, 'utf8').replace(/\/\*[\s\S]*?\*\/|\/\/.*$/gm, '')))
      .map((file) => relativeTo(SDK_SRC, file))
      .filter((file) => file.startsWith('resources/') || file.startsWith('internal/'));
    expect(senders).toEqual([SEND_STAGE]);
    // Resources call `request` (or the send stage, for the list walk and the create's own requests).
    const resources = [...sdkGraph].filter(([file]) => file.startsWith('resources/'));
    const transportUsers = resources.filter(([, { files }]) => files.includes('internal/http.ts'));
    expect(transportUsers.map(([file]) => file)).toEqual([]);
  });
});

describe('structure of the tools (packages/tools/src)', () => {
  it('reach the SDK only through its published entries', () => {
    const deep: string[] = [];
    for (const [file, { packages }] of readImports(TOOLS_SRC)) {
      for (const name of packages) {
        if (name.startsWith('delivery-task-sdk') && !PUBLISHED.has(name)) deep.push(`${file} -> ${name}`);
      }
    }
    expect(deep).toEqual([]);
  });
});

describe.each([
  ['the SDK', SDK_SRC],
  ['the tools', TOOLS_SRC],
])('structure of %s', (_name, src) => {
  const graph = src === SDK_SRC ? sdkGraph : readImports(src);

  it('no import circle between files', () => {
    const edges = new Map([...graph].map(([file, { files }]) => [file, new Set(files)]));
    expect(circles(edges)).toEqual([]);
  });

  it('no import circle between rooms (top-level folders and files): every import points down a floor', () => {
    const edges = new Map<string, Set<string>>();
    const witnesses = new Map<string, string>();
    for (const [file, { files }] of graph) {
      const from = roomOf(file);
      const targets = edges.get(from) ?? new Set<string>();
      edges.set(from, targets);
      for (const target of files) {
        const to = roomOf(target);
        if (to === from) continue;
        targets.add(to);
        witnesses.set(`${from} -> ${to}`, `${file} -> ${target}`);
      }
    }
    const found = circles(edges).map((rooms) =>
      [...witnesses]
        .filter(
          ([edge]) =>
            rooms.includes(edge.split(' -> ')[0] ?? '') && rooms.includes(edge.split(' -> ')[1] ?? ''),
        )
        .map(([, example]) => example),
    );
    expect(found).toEqual([]);
  });

  it('no file over 400 lines', () => {
    const long = [...graph.keys()]
      .map((file) => [file, readFileSync(join(src, file), 'utf8').split('\n').length - 1] as const)
      .filter(([, lines]) => lines > 400);
    expect(long).toEqual([]);
  });

  it('no comment line over 110 characters (the formatter holds code lines to 110 where it can break them)', () => {
    const wide = [...graph.keys()].flatMap((file) =>
      readFileSync(join(src, file), 'utf8')
        .split('\n')
        .flatMap((line, index) =>
          line.length > 110 && /^\s*(\/\/|\/\*|\*)/.test(line) ? [`${file}:${index + 1}`] : [],
        ),
    );
    expect(wide).toEqual([]);
  });
});
