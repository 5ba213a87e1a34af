/**
 * The mock's regex search (`ignoreRegex=false`) as a Pike machine: linear time; grammar in docs/testing.md.
 * @module
 */
import { type CharTest, type Node, Parser, UnsupportedPatternError } from './pattern-parser.js';

/**
 * Most instructions a compiled pattern may have (a 200-character pattern without counted repetition needs
 * fewer than 400).
 */
export const MAX_PATTERN_PROGRAM = 2000;

/**
 * Thrown by {@link SearchPattern.test} once the pattern's steps pass its `maxSteps`, inside the scan of a
 * text.
 */
export class StepBudgetExceededError extends Error {
  override name = 'StepBudgetExceededError';
}

const CHAR = 0;
const SPLIT = 1;
const JUMP = 2;
const BOL = 3;
const EOL = 4;
const MATCH = 5;

interface Instruction {
  op: number;
  test?: CharTest;
  next: number;
  alternative: number;
}

function compile(root: Node): Instruction[] {
  const program: Instruction[] = [];
  const emit = (op: number, test?: CharTest): Instruction => {
    if (program.length >= MAX_PATTERN_PROGRAM) {
      throw new UnsupportedPatternError(
        `a pattern of more than ${MAX_PATTERN_PROGRAM} steps once repetitions are expanded`,
      );
    }
    const instruction: Instruction = { op, next: program.length + 1, alternative: -1 };
    if (test) instruction.test = test;
    program.push(instruction);
    return instruction;
  };
  const visit = (node: Node): void => {
    switch (node.kind) {
      case 'char':
        emit(CHAR, node.test);
        return;
      case 'bol':
        emit(BOL);
        return;
      case 'eol':
        emit(EOL);
        return;
      case 'seq':
        for (const item of node.items) visit(item);
        return;
      case 'alt': {
        const jumps: Instruction[] = [];
        node.options.forEach((option, index) => {
          const split = index < node.options.length - 1 ? emit(SPLIT) : undefined;
          visit(option);
          if (split) {
            jumps.push(emit(JUMP));
            split.alternative = program.length;
          }
        });
        for (const jump of jumps) jump.next = program.length;
        return;
      }
      case 'repeat': {
        for (let count = 0; count < node.min; count++) visit(node.node);
        if (node.max === Infinity) {
          const loop = program.length;
          const split = emit(SPLIT);
          visit(node.node);
          emit(JUMP).next = loop;
          split.alternative = program.length;
          return;
        }
        const splits: Instruction[] = [];
        for (let count = node.min; count < node.max; count++) {
          splits.push(emit(SPLIT));
          visit(node.node);
        }
        for (const split of splits) split.alternative = program.length;
        return;
      }
    }
  };
  visit(root);
  emit(MATCH);
  return program;
}

/** True when every way through the pattern starts with `^`, so only position 0 can start a match. */
function anchoredAtStart(node: Node): boolean {
  switch (node.kind) {
    case 'bol':
      return true;
    case 'seq':
      return node.items[0] !== undefined && anchoredAtStart(node.items[0]);
    case 'alt':
      return node.options.every(anchoredAtStart);
    case 'repeat':
      return node.min > 0 && anchoredAtStart(node.node);
    default:
      return false;
  }
}

export interface SearchPattern {
  /**
   * As `RegExp.prototype.test` with `i`. @throws {StepBudgetExceededError} once {@link steps} passes
   * `maxSteps`.
   */
  test(text: string): boolean;
  /** Automaton steps taken by every `test` so far: at most program size × (text length + 1) per text. */
  readonly steps: number;
  /** Instructions of the compiled program. */
  readonly size: number;
}

/**
 * Compiles `source` (check it with `RegExp` first); `maxSteps` bounds all `test` calls together (default
 * none).
 * @throws {UnsupportedPatternError} outside the grammar, or over {@link MAX_PATTERN_PROGRAM} instructions.
 */
export function compileSearchPattern(source: string, maxSteps = Number.POSITIVE_INFINITY): SearchPattern {
  const root = new Parser(source).parse();
  const program = compile(root);
  const anchored = anchoredAtStart(root);
  const size = program.length;
  // Per step, the states already added (by generation) and the live list, reused across texts.
  const seen = new Int32Array(size).fill(-1);
  let current = new Int32Array(size);
  let next = new Int32Array(size);
  const stack = new Int32Array(size * 2 + 2);
  let generation = 0;
  let steps = 0;

  /** Adds `start` and every state reachable from it without reading a character; true on MATCH. */
  const add = (
    list: Int32Array,
    count: number,
    start: number,
    position: number,
    length: number,
  ): [number, boolean] => {
    let top = 0;
    stack[top++] = start;
    let matched = false;
    while (top > 0) {
      const pc = stack[--top] as number;
      if (seen[pc] === generation) continue;
      seen[pc] = generation;
      steps++;
      const instruction = program[pc] as Instruction;
      switch (instruction.op) {
        case CHAR:
          list[count++] = pc;
          break;
        case SPLIT:
          stack[top++] = instruction.alternative;
          stack[top++] = instruction.next;
          break;
        case JUMP:
          stack[top++] = instruction.next;
          break;
        case BOL:
          if (position === 0) stack[top++] = instruction.next;
          break;
        case EOL:
          if (position === length) stack[top++] = instruction.next;
          break;
        default:
          matched = true;
      }
    }
    return [count, matched];
  };

  return {
    get steps() {
      return steps;
    },
    size,
    test(text: string): boolean {
      const length = text.length;
      let count = 0;
      generation++;
      let matched: boolean;
      if (steps > maxSteps) throw new StepBudgetExceededError(`more than ${maxSteps} steps`);
      [count, matched] = add(current, 0, 0, 0, length);
      for (let position = 0; !matched && position < length; position++) {
        if (count === 0 && anchored) return false;
        if (steps > maxSteps) throw new StepBudgetExceededError(`more than ${maxSteps} steps`);
        const code = text.charCodeAt(position);
        generation++;
        let nextCount = 0;
        for (let index = 0; index < count && !matched; index++) {
          const instruction = program[current[index] as number] as Instruction;
          steps++;
          if (instruction.test?.(code)) {
            [nextCount, matched] = add(next, nextCount, instruction.next, position + 1, length);
          }
        }
        if (!anchored && !matched) [nextCount, matched] = add(next, nextCount, 0, position + 1, length);
        [current, next] = [next, current];
        count = nextCount;
      }
      return matched;
    },
  };
}
