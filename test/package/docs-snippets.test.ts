/**
 * The snippets of the README and docs/ use the types as they are: no `??` or `?.` on a value whose type
 * cannot be `null` or `undefined` (such as `mock.advance(task.id ?? '', …)` on a created task, whose `id`
 * is a `string`). `npm run check:readme` type-checks the same blocks; this finds the guards it accepts.
 */
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';
import { afterAll, describe, expect, it } from 'vitest';

const directory = `.snippet-guards-${process.pid}`;
afterAll(() => rmSync(directory, { recursive: true, force: true }));

/** The ```ts blocks of the README and the guides, each with its file and line. */
function blocks(): { source: string; line: number; code: string }[] {
  const sources = [
    'README.md',
    'packages/tools/README.md',
    ...readdirSync('docs')
      .filter((name) => name.endsWith('.md'))
      .map((name) => join('docs', name)),
  ];
  return sources.flatMap((source) => {
    const text = readFileSync(source, 'utf8');
    return [...text.matchAll(/^( *)```ts\n([\s\S]*?)^\1```/gm)].map((match) => ({
      source,
      line: text.slice(0, match.index).split('\n').length,
      code: (match[2] ?? '')
        .split('\n')
        .map((each) => each.slice(Math.min((match[1] ?? '').length, each.search(/\S|$/))))
        .join('\n'),
    }));
  });
}

/** `??` and `?.` whose left side's type excludes `null` and `undefined`. */
function needlessGuards(program: ts.Program, files: ReadonlyMap<string, string>): string[] {
  const checker = program.getTypeChecker();
  const nullable =
    ts.TypeFlags.Null | ts.TypeFlags.Undefined | ts.TypeFlags.Any | ts.TypeFlags.Unknown | ts.TypeFlags.Void;
  const mayBeAbsent = (node: ts.Expression) => {
    const type = checker.getTypeAtLocation(node);
    const parts = type.isUnion() ? type.types : [type];
    return parts.some(
      (part) => (part.flags & nullable) !== 0 || (part.flags & ts.TypeFlags.TypeParameter) !== 0,
    );
  };
  const found: string[] = [];
  for (const [file, where] of files) {
    const source = program.getSourceFile(file);
    if (source === undefined) throw new Error(`${file} not in the program`);
    const visit = (node: ts.Node): void => {
      let guarded: ts.Expression | undefined;
      if (ts.isBinaryExpression(node) && node.operatorToken.kind === ts.SyntaxKind.QuestionQuestionToken)
        guarded = node.left;
      else if (
        (ts.isPropertyAccessExpression(node) ||
          ts.isElementAccessExpression(node) ||
          ts.isCallExpression(node)) &&
        node.questionDotToken
      )
        guarded = node.expression;
      if (guarded !== undefined && !mayBeAbsent(guarded)) {
        const line = source.getLineAndCharacterOfPosition(node.getStart()).line;
        found.push(`${where} (+${line}): ${node.getText()}`);
      }
      ts.forEachChild(node, visit);
    };
    visit(source);
  }
  return found;
}

describe('snippets of the README and docs/', () => {
  it('guard no value against null or undefined that its type rules out', () => {
    rmSync(directory, { recursive: true, force: true });
    mkdirSync(directory);
    const files = new Map<string, string>();
    blocks().forEach((block, index) => {
      const file = join(process.cwd(), directory, `block-${index}.ts`);
      writeFileSync(file, `${block.code}\nexport {};\n`);
      files.set(file, `${block.source}:${block.line}`);
    });
    const prelude = readFileSync('scripts/check-readme.ts', 'utf8').match(
      /const prelude = `([\s\S]*?)`;/,
    )?.[1];
    writeFileSync(join(directory, 'prelude.d.ts'), prelude ?? '');
    const config = ts.getParsedCommandLineOfConfigFile(
      'tsconfig.json',
      {},
      { ...ts.sys, onUnRecoverableConfigFileDiagnostic: () => {} },
    );
    if (config === undefined) throw new Error('tsconfig.json not read');
    const program = ts.createProgram({
      rootNames: [...files.keys(), join(process.cwd(), directory, 'prelude.d.ts')],
      options: {
        ...config.options,
        noEmit: true,
        baseUrl: process.cwd(),
        paths: {
          'delivery-task-sdk': ['src/index.ts'],
          'delivery-task-sdk/testing': ['src/testing.ts'],
          'delivery-task-sdk/redis': ['src/redis.ts'],
          'delivery-task-sdk/postgres': ['src/postgres.ts'],
          'delivery-task-sdk/schemas': ['src/schemas.ts'],
          'delivery-task-sdk/webhooks': ['src/webhooks.ts'],
          'delivery-task-sdk/kwd': ['src/kwd.ts'],
          'delivery-task-sdk/internal': ['src/internal.ts'],
          'delivery-task-tools/mcp': ['packages/tools/src/mcp.ts'],
          'delivery-task-tools/sandbox': ['packages/tools/src/sandbox.ts'],
        },
      },
    });
    expect(needlessGuards(program, files)).toEqual([]);
  }, 120_000);
});
