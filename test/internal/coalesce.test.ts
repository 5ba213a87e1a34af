import { expect, it } from 'vitest';
import { coalesced } from '../../src/internal/coalesce.js';

/** A send whose batches are recorded and answered when the test says. */
function heldSend() {
  const batches: string[][] = [];
  const answers: { resolve: () => void; reject: (error: Error) => void }[] = [];
  const send = (items: readonly string[]) =>
    new Promise<void>((resolve, reject) => {
      batches.push([...items]);
      answers.push({ resolve, reject });
    });
  return { send, batches, answers };
}

const tick = () => new Promise((resolve) => setImmediate(resolve));

it('sends the items given in one turn together, and those given while it is sent in the next batch', async () => {
  const { send, batches, answers } = heldSend();
  const one = coalesced(send, 100);
  const settled: string[] = [];
  const first = ['a', 'b'].map((item) => one(item).then(() => void settled.push(item)));
  await tick();
  expect(batches).toEqual([['a', 'b']]);
  const second = ['c', 'd', 'e'].map((item) => one(item).then(() => void settled.push(item)));
  await tick();
  expect(batches).toHaveLength(1);
  answers[0]?.resolve();
  await Promise.all(first);
  expect(settled).toEqual(['a', 'b']);
  await tick();
  expect(batches[1]).toEqual(['c', 'd', 'e']);
  answers[1]?.resolve();
  await Promise.all(second);
  expect(settled).toEqual(['a', 'b', 'c', 'd', 'e']);
});

it('sends max items per batch at most', async () => {
  const { send, batches, answers } = heldSend();
  const one = coalesced(send, 2);
  const all = ['a', 'b', 'c', 'd', 'e'].map((item) => one(item));
  for (let round = 0; round < 3; round++) {
    await tick();
    answers[round]?.resolve();
  }
  await Promise.all(all);
  expect(batches).toEqual([['a', 'b'], ['c', 'd'], ['e']]);
});

it('rejects each item of a batch that failed with its error, and sends the next batch all the same', async () => {
  const { send, batches, answers } = heldSend();
  const one = coalesced(send, 100);
  const failing = ['a', 'b'].map((item) => one(item));
  await tick();
  const next = one('c');
  answers[0]?.reject(new Error('connection lost'));
  await expect(Promise.all(failing)).rejects.toThrow('connection lost');
  await expect(failing[1]).rejects.toThrow('connection lost');
  await tick();
  expect(batches[1]).toEqual(['c']);
  answers[1]?.resolve();
  await expect(next).resolves.toBeUndefined();
});

it('rejects the items when send throws instead of rejecting', async () => {
  const one = coalesced<string>(() => {
    throw new Error('bad arguments');
  }, 10);
  await expect(one('a')).rejects.toThrow('bad arguments');
  await expect(one('b')).rejects.toThrow('bad arguments');
});
