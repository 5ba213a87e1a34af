import { describe, expect, it } from 'vitest';
import { RequestValidationError } from '../../src/core/errors.js';
import { pathOf } from '../../src/internal/path.js';

/** The path of `tasks.retrieve` for `id`. */
const taskPath = (id: unknown, operation: string) => pathOf('/tasks/{id}', { id }, operation);

function rejectionOf(id: unknown): RequestValidationError {
  try {
    taskPath(id, 'tasks.retrieve');
  } catch (error) {
    expect(error).toBeInstanceOf(RequestValidationError);
    return error as RequestValidationError;
  }
  throw new Error(`expected ${JSON.stringify(id)} to be rejected`);
}

describe('pathOf with a task id', () => {
  it('encodes the id into one segment under tasks/', () => {
    expect(taskPath('abc', 'tasks.retrieve')).toBe('tasks/abc');
    expect(taskPath('../wallet-balance', 'tasks.retrieve')).toBe('tasks/..%2Fwallet-balance');
    expect(taskPath('😀 x', 'tasks.retrieve')).toBe('tasks/%F0%9F%98%80%20x');
  });

  it.each([
    ['a lone high surrogate', 'abc\uD800'],
    ['a lone low surrogate', '\uDC00abc'],
    ['surrogates in the wrong order', '\uDE00\uD83D'],
  ])('rejects an id with %s as a RequestValidationError on id, not a URIError', (_name, id) => {
    const error = rejectionOf(id);
    expect(error.issues).toEqual([expect.objectContaining({ path: 'id' })]);
    expect(error.operation).toBe('tasks.retrieve');
  });

  it('rejects empty, blank, dot and non-string ids on id', () => {
    for (const id of ['', '  ', '.', '..', undefined, 42, null]) {
      expect(rejectionOf(id).issues[0]?.path, String(id)).toBe('id');
    }
  });
});
