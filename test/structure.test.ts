/**
 * The layout of `src`, read from its imports (static, type-only, re-exports and `import()`): the ground
 * floor (`src/schemas`: the service's vocabulary) imports nothing above it, the table of operations
 * stands on it alone, and no import runs in a circle, between files or between rooms (a room is a
 * top-level folder or file of `src`), so every import points down a floor.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const SRC = join(ROOT, 'src');
const GROUND = 'schemas';
const OPERATIONS = 'core/operations.ts';
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
const fromSrc = (path: string): string => relative(SRC, path).split(sep).join('/');

function resolveRelative(importer: string, specifier: string): string {
  const base = join(dirname(importer), specifier).replace(/\.(js|ts)x?$/, '');
  for (const candidate of [`${base}.ts`, `${base}.tsx`, join(base, 'index.ts')]) {
    if (existsSync(candidate)) return fromSrc(candidate);
  }
  throw new Error(`${fromSrc(importer)} imports ${specifier}, which is not a file of src`);
}

interface Imports {
  /** `src`-relative files this file imports. */
  readonly files: readonly string[];
  /** Bare specifiers (packages and `node:` modules). */
  readonly packages: readonly string[];
}

function readImports(): Map<string, Imports> {
  const graph = new Map<string, Imports>();
  for (const file of sourceFiles(SRC)) {
    const { importedFiles } = ts.preProcessFile(readFileSync(file, 'utf8'), true, true);
    const specifiers = importedFiles.map((entry) => entry.fileName);
    graph.set(fromSrc(file), {
      files: specifiers.filter((s) => s.startsWith('.')).map((s) => resolveRelative(file, s)),
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

const graph = readImports();

describe('structure of src', () => {
  it(`the ground floor (src/${GROUND}) imports nothing outside itself but ${[...GROUND_PACKAGES].join(', ')}`, () => {
    const upward: string[] = [];
    for (const [file, { files, packages }] of graph) {
      if (roomOf(file) !== GROUND) continue;
      for (const target of files) if (roomOf(target) !== GROUND) upward.push(`${file} -> ${target}`);
      for (const name of packages) if (!GROUND_PACKAGES.has(name)) upward.push(`${file} -> ${name}`);
    }
    expect(upward).toEqual([]);
  });

  it(`the table of operations (src/${OPERATIONS}) imports only the ground floor`, () => {
    const imports = graph.get(OPERATIONS);
    expect(imports).toBeDefined();
    expect(imports?.files.filter((target) => roomOf(target) !== GROUND)).toEqual([]);
    expect(imports?.packages).toEqual([]);
  });

  it('no import circle between files of src', () => {
    const edges = new Map([...graph].map(([file, { files }]) => [file, new Set(files)]));
    expect(circles(edges)).toEqual([]);
  });

  it('no import circle between rooms of src (top-level folders and files): every import points down a floor', () => {
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
        .filter(([edge]) => rooms.includes(edge.split(' -> ')[0] ?? '') && rooms.includes(edge.split(' -> ')[1] ?? ''))
        .map(([, example]) => example),
    );
    expect(found).toEqual([]);
  });

  // Turned on once every part of issue 28's first wave is merged.
  it.skip('no src file over 500 lines (on after wave 1 merges)', () => {
    const long = [...graph.keys()]
      .map((file) => [file, readFileSync(join(SRC, file), 'utf8').split('\n').length - 1] as const)
      .filter(([, lines]) => lines > 500);
    expect(long).toEqual([]);
  });

  it.skip('comments are at most 15% of src lines (on after wave 1 merges)', () => {
    let comments = 0;
    let total = 0;
    for (const file of graph.keys()) {
      const lines = readFileSync(join(SRC, file), 'utf8').split('\n');
      if (lines.at(-1) === '') lines.pop();
      let inBlock = false;
      for (const line of lines) {
        const text = line.trim();
        total++;
        if (inBlock) {
          comments++;
          if (text.includes('*/')) inBlock = false;
        } else if (text.startsWith('//') || text.startsWith('*')) {
          comments++;
        } else if (text.startsWith('/*')) {
          comments++;
          inBlock = !text.includes('*/');
        }
      }
    }
    expect(comments / total).toBeLessThanOrEqual(0.15);
  });
});
