/**
 * The file store `delivery-task mcp` counts spending in without `--redis`: the four operations, expiry,
 * bounds, a file that is not a store's, and atomicity across real processes sharing one file (a lock file
 * beside it), including a lock left by a process that died.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { FILE_STORE_LOCK_WAIT_MS, fileStore } from '../../src/mcp/file-store.js';
import { ROOT } from '../support/sandbox-process.js';
import { newStateDir } from './support.js';

const children: ChildProcess[] = [];
afterAll(() => {
  for (const child of children) child.kill('SIGKILL');
});

/** Runs `code` (an ES module that may import the store as `STORE`) in a new Node process; resolves with stdout. */
function runNode(code: string): Promise<string> {
  const source = join(ROOT, 'src', 'mcp', 'file-store.ts');
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', '--input-type=module', '-e', code.replaceAll('STORE', JSON.stringify(source))],
    { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  children.push(child);
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => {
    stdout += chunk.toString();
  });
  child.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (code) =>
      code === 0 ? resolve(stdout) : reject(new Error(`exit ${code}: ${stderr}`)),
    );
  });
}

describe('fileStore', () => {
  it('keeps the four operations of a DeliveryStore, with expiry, in a file only its user can read', async () => {
    let now = 1_000_000;
    const path = join(newStateDir(), 'nested', 'store.json');
    const store = fileStore(path, { now: () => now });
    expect(await store.get('k')).toBeUndefined();
    expect(await store.setIfAbsent('k', 'a', 1000)).toBe(true);
    expect(await store.setIfAbsent('k', 'b', 1000)).toBe(false);
    expect(await store.compareAndSet('k', 'x', 'c', 1000)).toBe(false);
    expect(await store.compareAndSet('k', 'a', 'c', 1000)).toBe(true);
    expect(await store.compareAndSet('new', undefined, 'n', 1000)).toBe(true);
    expect(await store.delete('k', 'a')).toBe(false);
    expect(await store.delete('k', 'c')).toBe(true);
    expect(await store.get('k')).toBeUndefined();
    // Another store on the same file sees what this one wrote; expiry drops it.
    expect(await fileStore(path, { now: () => now }).get('new')).toBe('n');
    now += 1000;
    expect(await store.get('new')).toBeUndefined();
    expect(await store.setIfAbsent('new', 'again', 1000)).toBe(true);
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(statSync(join(path, '..')).mode & 0o777).toBe(0o700);
    expect(JSON.parse(readFileSync(path, 'utf8'))).toMatchObject({
      version: 1,
      entries: { new: { value: 'again' } },
    });
  });

  it('refuses a new key beyond its bound, and a file that is not a store', async () => {
    const dir = newStateDir();
    const store = fileStore(join(dir, 'store.json'), { maxKeys: 2 });
    await store.setIfAbsent('a', '1', 60_000);
    await store.setIfAbsent('b', '1', 60_000);
    await expect(store.setIfAbsent('c', '1', 60_000)).rejects.toThrow(/holds 2 keys, its most/);
    expect(await store.compareAndSet('a', '1', '2', 60_000)).toBe(true);
    writeFileSync(join(dir, 'other.json'), '{"tasks":[]}');
    await expect(fileStore(join(dir, 'other.json')).get('a')).rejects.toThrow(
      /not a delivery-task store file/,
    );
  });

  it('loses no update when three processes add to one counter at once', async () => {
    const path = join(newStateDir(), 'store.json');
    const worker = `
      import { fileStore } from STORE;
      const store = fileStore(${JSON.stringify(path)}, { lockWaitMs: 30000 });
      for (let done = 0; done < 100; ) {
        const current = await store.get('count');
        if (await store.compareAndSet('count', current, String(Number(current ?? 0) + 1), 60000)) done++;
      }`;
    await Promise.all([runNode(worker), runNode(worker), runNode(worker)]);
    expect(await fileStore(path).get('count')).toBe('300');
  }, 120_000);

  it('takes over the lock of a process that died holding it, and waits out a live holder', async () => {
    const path = join(newStateDir(), 'store.json');
    // A process that took the lock and died without releasing it.
    const pid = Number(
      await runNode(`import { writeFileSync } from 'node:fs';
      writeFileSync(${JSON.stringify(`${path}.lock`)}, process.pid + ' held');
      console.log(process.pid);`),
    );
    expect(pid).toBeGreaterThan(0);
    // Taken over however busy the machine: the wait is wall time, which a stalled process spends without
    // running (900 ms by default; a call past it refuses, as a live holder's would). Under the 10 s after
    // which any lock counts as stale, so only the dead holder lets this call in.
    expect(await fileStore(path, { lockWaitMs: 5000 }).setIfAbsent('k', 'v', 60_000)).toBe(true);

    // A live holder (this process, another token, just now): a call gives up after its wait.
    writeFileSync(`${path}.lock`, `${process.pid} someone-else`);
    const started = performance.now();
    await expect(fileStore(path, { lockWaitMs: 200 }).setIfAbsent('k2', 'v', 60_000)).rejects.toThrow(
      /stayed locked by another process for 200 ms/,
    );
    expect(performance.now() - started).toBeGreaterThanOrEqual(200);
    expect(FILE_STORE_LOCK_WAIT_MS).toBeLessThan(1000);
    // Reads need no lock.
    expect(await fileStore(path).get('k')).toBe('v');
  }, 60_000);
});
