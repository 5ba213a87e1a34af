/**
 * The mock's linear-time pattern search: the same answer as `RegExp` with the `i` flag on every pattern of
 * its grammar, work bounded by program size × text length whatever the pattern, and a refusal for what
 * the grammar does not have (lookarounds, backreferences, repetition blown past the program bound).
 */
import { Worker } from 'node:worker_threads';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { exactPattern } from '../../src/resources/task-creation/order-lookup.js';
import { UnsupportedPatternError } from '../../src/testing/pattern-parser.js';
import { compileSearchPattern, MAX_PATTERN_PROGRAM } from '../../src/testing/search-pattern.js';

const atom = fc.constantFrom(
  'a',
  'B',
  'c',
  '1',
  '-',
  ' ',
  '\\.',
  '\\-',
  '.',
  '\\d',
  '\\D',
  '\\w',
  '\\W',
  '\\s',
  '\\S',
  '[a-c]',
  '[^b]',
  '[A-Z0-9]',
  '[-.]',
  '[\\d.]',
  '\\x41',
  '\\u0062',
  '{',
  '}',
  ']',
);
const quantifier = fc.constantFrom('', '', '', '*', '+', '?', '*?', '+?', '{2}', '{1,3}', '{0,}', '{2,}?');

/** Patterns of the mock's grammar, built from atoms, groups, alternation, quantifiers and anchors. */
const pattern: fc.Arbitrary<string> = fc
  .letrec<{ sequence: string; term: string }>((tie) => ({
    term: fc.oneof(
      // Groups nest at most 2 deep: RegExp, the oracle, backtracks exponentially in the depth of nested
      // quantified groups (one run spent over 10 minutes in a single match on a deeper pattern).
      { depthSize: 'small', maxDepth: 2, withCrossShrink: true },
      fc.tuple(atom, quantifier).map(([a, q]) => a + q),
      fc
        .tuple(fc.constantFrom('(', '(?:', '(?<name>'), tie('sequence'), fc.constantFrom(')'), quantifier)
        .map((parts) => parts.join('')),
    ),
    sequence: fc
      .tuple(fc.array(tie('term'), { maxLength: 4 }), fc.array(tie('term'), { maxLength: 3 }), fc.boolean())
      .map(([left, right, alternate]) => (alternate ? `${left.join('')}|${right.join('')}` : left.join(''))),
  }))
  .sequence.chain((body) =>
    fc
      .tuple(fc.constantFrom('', '^'), fc.constant(body), fc.constantFrom('', '$'))
      .map((parts) => parts.join('')),
  );
const text = fc.string({
  unit: fc.constantFrom('a', 'A', 'b', 'B', 'c', '1', '9', ' ', '-', '.', '_', '\n', 'é', '{'),
  maxLength: 6, // short: RegExp, the oracle, backtracks exponentially on some generated patterns (its budget below)
});

/** How long the oracle may take for one text, ms, before that text is left out. */
const ORACLE_BUDGET_MS = 250;

/**
 * `RegExp` with the `i` flag, run in a worker thread and given up after {@link ORACLE_BUDGET_MS}: on some
 * patterns of this grammar it backtracks for seconds or minutes on five characters (96 s on one), which
 * the bounds on the generated patterns and texts above do not rule out. Its answer comes through shared
 * memory, waited for with `Atomics.wait`; a worker past the budget is terminated and replaced.
 */
class RegExpOracle {
  #shared = new Int32Array(new SharedArrayBuffer(8));
  #worker = this.#start();
  #request = 0;
  /** Texts left out because the oracle ran past its budget. */
  givenUp = 0;

  #start(): Worker {
    // A fresh buffer per worker: a terminated one can never write into its successor's answer.
    this.#shared = new Int32Array(new SharedArrayBuffer(8));
    const worker = new Worker(
      `const { parentPort, workerData } = require('node:worker_threads');
      const shared = new Int32Array(workerData);
      parentPort.on('message', ({ source, text, request }) => {
        Atomics.store(shared, 1, new RegExp(source, 'i').test(text) ? 1 : 0);
        Atomics.store(shared, 0, request);
        Atomics.notify(shared, 0);
      });`,
      { eval: true, workerData: this.#shared.buffer },
    );
    worker.unref();
    return worker;
  }

  /** `new RegExp(source, 'i').test(text)`, or `undefined` past the budget. */
  test(source: string, text: string): boolean | undefined {
    const request = ++this.#request;
    const shared = this.#shared;
    this.#worker.postMessage({ source, text, request });
    const deadline = performance.now() + ORACLE_BUDGET_MS;
    for (let seen = Atomics.load(shared, 0); seen !== request; seen = Atomics.load(shared, 0)) {
      const left = deadline - performance.now();
      if (left <= 0) {
        void this.#worker.terminate();
        this.#worker = this.#start();
        this.givenUp++;
        return undefined;
      }
      Atomics.wait(shared, 0, seen, left);
    }
    return Atomics.load(shared, 1) === 1;
  }

  close(): Promise<number> {
    return this.#worker.terminate();
  }
}

describe('the mock search pattern', () => {
  const oracle = new RegExpOracle();
  afterAll(() => oracle.close());

  it('answers as RegExp with the i flag on every pattern of its grammar', () => {
    let compared = 0;
    fc.assert(
      fc.property(pattern, fc.array(text, { minLength: 1, maxLength: 8 }), (source, texts) => {
        try {
          new RegExp(source, 'i');
        } catch {
          return; // RegExp refuses it: so does the mock, before this engine
        }
        let compiled: ReturnType<typeof compileSearchPattern>;
        try {
          compiled = compileSearchPattern(source);
        } catch (error) {
          // Nested counted repetitions can expand past the program bound: refused, never run.
          expect(String(error)).toMatch(/more than/);
          return;
        }
        for (const candidate of texts) {
          const expected = oracle.test(source, candidate);
          if (expected === undefined) continue;
          compared++;
          expect(compiled.test(candidate), `${source} on ${JSON.stringify(candidate)}`).toBe(expected);
        }
      }),
      { numRuns: 3000 },
    );
    // The oracle answers for nearly every text: about 10 000 compared a run; a scan of 200 seeds found 8
    // texts over 500 ms among about 2 million.
    expect(compared).toBeGreaterThan(5000);
    expect(oracle.givenUp).toBeLessThanOrEqual(20);
  });

  it('matches the SDK exact order patterns (^escaped$) exactly', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 40 }), fc.string({ maxLength: 40 }), (orderNumber, other) => {
        const compiled = compileSearchPattern(exactPattern(orderNumber));
        const expected = new RegExp(exactPattern(orderNumber), 'i');
        expect(compiled.test(orderNumber)).toBe(true);
        expect(compiled.test(other)).toBe(expected.test(other));
        expect(compiled.test(`${orderNumber}0`)).toBe(expected.test(`${orderNumber}0`));
      }),
    );
  });

  it('does work linear in the text for patterns that backtrack catastrophically', () => {
    for (const source of ['(a+)+$', '^(a|a)*$', '(a*)*b', '^(.*a){20}$', '(a|aa)+$', '(\\w+\\s?)+$']) {
      const compiled = compileSearchPattern(source);
      const subject = `${'a'.repeat(5000)}!`;
      expect(compiled.test(subject), source).toBe(false);
      expect(compiled.steps, source).toBeLessThanOrEqual(2 * compiled.size * (subject.length + 1));
    }
  });

  it('refuses lookarounds, backreferences, word boundaries and programs past the bound', () => {
    for (const source of [
      '(?=a)',
      '(?!a)b',
      '(?<=a)b',
      '(?<!a)b',
      '(a)\\1',
      '(?<x>a)\\k<x>',
      '\\bfoo',
      'a\\B',
      '\\p{L}',
      '\\cA',
      '(a{100}){100}',
      'a{101}',
    ]) {
      expect(() => compileSearchPattern(source), source).toThrow(UnsupportedPatternError);
    }
    expect(() => compileSearchPattern('.'.repeat(MAX_PATTERN_PROGRAM))).toThrow(/more than/);
  });
});
