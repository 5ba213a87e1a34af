/**
 * A `DeliveryStore` in one JSON file, for `delivery-task mcp` without `--redis` (`docs/mcp.md`, "Where
 * spending is counted"): the day's spending outlives the process, and every process on this machine that
 * names the same file shares it. Each call locks the file (a lock file beside it), reads it, writes a new
 * copy and renames it over the old one.
 */
import { randomUUID } from 'node:crypto';
import { link, mkdir, readFile, rename, stat, unlink, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { DeliveryStore } from 'delivery-task-sdk';

/** Most keys the file holds; a write of a new key beyond it is refused (the store then refuses bookings). */
export const FILE_STORE_MAX_KEYS = 10_000;

/** Largest file read, bytes (8 MiB): a larger one is not ours, and is refused rather than read. */
export const FILE_STORE_MAX_BYTES = 8 * 1024 * 1024;

/** How long a call waits for another process's lock, ms (under the policy's 1000 ms store deadline). */
export const FILE_STORE_LOCK_WAIT_MS = 900;

/** A lock older than this is taken over, ms: a call holds it for one read and one write of a small file. */
export const FILE_STORE_STALE_LOCK_MS = 10_000;

interface Entry {
  readonly value: string;
  /** Expiry, ms since the epoch. */
  readonly expiresAt: number;
}

/** Options of {@link fileStore}. */
export interface FileStoreOptions {
  /**
   * Clock of the keys' expiry, ms since the epoch, for tests (locks use the real clock). Default `Date.now`.
   */
  readonly now?: () => number;
  /** How long a call waits for the lock, ms. Default {@link FILE_STORE_LOCK_WAIT_MS}. */
  readonly lockWaitMs?: number;
  /** Most keys held. Default {@link FILE_STORE_MAX_KEYS}. */
  readonly maxKeys?: number;
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const codeOf = (error: unknown): unknown => (error as { code?: unknown } | null)?.code;

/** True while the process `pid` runs (on this machine). */
function running(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return codeOf(error) === 'EPERM';
  }
}

/**
 * Moves a lock aside when its holder stopped running or it is older than {@link FILE_STORE_STALE_LOCK_MS}.
 * The rename lets one contender take a given lock; one that moved a fresh lock instead puts it back.
 */
async function breakStaleLock(lockPath: string): Promise<void> {
  let held: string;
  let age: number;
  try {
    held = await readFile(lockPath, 'utf8');
    age = Date.now() - (await stat(lockPath)).mtimeMs;
  } catch {
    return;
  }
  const pid = Number(held.split(' ')[0]);
  const holderGone = Number.isSafeInteger(pid) && pid > 0 && pid !== process.pid && !running(pid);
  if (!holderGone && age < FILE_STORE_STALE_LOCK_MS) return;
  const aside = `${lockPath}.${randomUUID()}.stale`;
  try {
    await rename(lockPath, aside);
  } catch {
    return;
  }
  const moved = await readFile(aside, 'utf8').catch(() => held);
  if (moved !== held) await link(aside, lockPath).catch(() => undefined);
  await unlink(aside).catch(() => undefined);
}

/**
 * The entries of the file, expired ones dropped. @throws {Error} naming the file when it is not a store's.
 */
function parse(path: string, text: string, time: number): Map<string, Entry> {
  const entries = new Map<string, Entry>();
  if (text === '') return entries;
  let document: unknown;
  try {
    document = JSON.parse(text);
  } catch {
    throw new Error(`${path} is not JSON: move it away, or name another file`);
  }
  const stored = (document as { entries?: unknown } | null)?.entries;
  if (typeof stored !== 'object' || stored === null || Array.isArray(stored)) {
    throw new Error(`${path} holds no "entries" object: it is not a delivery-task store file`);
  }
  for (const [key, entry] of Object.entries(stored)) {
    const { value, expiresAt } = (entry ?? {}) as { value?: unknown; expiresAt?: unknown };
    if (typeof value !== 'string' || typeof expiresAt !== 'number') {
      throw new Error(`${path}: the entry ${JSON.stringify(key.slice(0, 60))} is not { value, expiresAt }`);
    }
    if (expiresAt > time) entries.set(key, { value, expiresAt });
  }
  return entries;
}

/**
 * A store kept in the JSON file `path` (created with mode 0600, its folder 0700). Atomic across the
 * processes of one machine on a local file system: each call holds the lock file `<path>.lock` while it reads
 * and replaces the file. Bounded: {@link FILE_STORE_MAX_KEYS} keys, {@link FILE_STORE_MAX_BYTES} read.
 * A call rejects (the policy's store rule then refuses the booking) when the lock stays taken past
 * `lockWaitMs`, the file is not a store's, or the folder cannot be written.
 */
export function fileStore(path: string, options: FileStoreOptions = {}): DeliveryStore {
  const now = options.now ?? Date.now;
  const lockWaitMs = options.lockWaitMs ?? FILE_STORE_LOCK_WAIT_MS;
  const maxKeys = options.maxKeys ?? FILE_STORE_MAX_KEYS;
  const lockPath = `${path}.lock`;
  let queue: Promise<unknown> = Promise.resolve();

  async function lock(): Promise<string> {
    const token = `${process.pid} ${randomUUID()}`;
    const giveUpAt = Date.now() + lockWaitMs;
    for (let attempt = 0; ; attempt++) {
      try {
        await writeFile(lockPath, token, { flag: 'wx', mode: 0o600 });
        return token;
      } catch (error) {
        if (codeOf(error) === 'ENOENT') await mkdir(dirname(path), { recursive: true, mode: 0o700 });
        else if (codeOf(error) !== 'EEXIST') throw error;
      }
      await breakStaleLock(lockPath);
      if (Date.now() > giveUpAt)
        throw new Error(`${lockPath} stayed locked by another process for ${lockWaitMs} ms`);
      await pause(Math.min(2 ** attempt, 25));
    }
  }

  async function unlock(token: string): Promise<void> {
    const held = await readFile(lockPath, 'utf8').catch(() => undefined);
    if (held === token) await unlink(lockPath).catch(() => undefined);
  }

  async function read(): Promise<Map<string, Entry>> {
    let text: string;
    try {
      if ((await stat(path)).size > FILE_STORE_MAX_BYTES) {
        throw new Error(`${path} is over ${FILE_STORE_MAX_BYTES} bytes: not a delivery-task store file`);
      }
      text = await readFile(path, 'utf8');
    } catch (error) {
      if (codeOf(error) === 'ENOENT') return new Map();
      throw error;
    }
    return parse(path, text, now());
  }

  async function write(entries: Map<string, Entry>): Promise<void> {
    const temporary = `${path}.${process.pid}.${randomUUID()}.tmp`;
    const document = { version: 1, entries: Object.fromEntries(entries) };
    try {
      await writeFile(temporary, JSON.stringify(document), { mode: 0o600, flush: true });
      await rename(temporary, path);
    } catch (error) {
      await unlink(temporary).catch(() => undefined);
      throw error;
    }
  }

  /**
   * Runs `change` on the entries under the lock, one call of this process at a time; writes when it says so.
   */
  function locked<T>(change: (entries: Map<string, Entry>) => { result: T; write: boolean }): Promise<T> {
    const run = async () => {
      const token = await lock();
      try {
        const entries = await read();
        const { result, write: changed } = change(entries);
        if (changed) await write(entries);
        return result;
      } finally {
        await unlock(token);
      }
    };
    const done = queue.then(run, run);
    queue = done.catch(() => undefined);
    return done;
  }

  const put = (entries: Map<string, Entry>, key: string, value: string, ttlMs: number): void => {
    if (!entries.has(key) && entries.size >= maxKeys) {
      throw new Error(`${path} holds ${maxKeys} keys, its most; they expire within 2 days`);
    }
    entries.set(key, { value, expiresAt: now() + ttlMs });
  };

  return {
    setIfAbsent: (key, value, ttlMs) =>
      locked((entries) => {
        if (entries.has(key)) return { result: false, write: false };
        put(entries, key, value, ttlMs);
        return { result: true, write: true };
      }),
    // A read needs no lock: the file is only ever replaced whole, by a rename.
    get: async (key) => (await read()).get(key)?.value,
    compareAndSet: (key, expected, value, ttlMs) =>
      locked((entries) => {
        if (entries.get(key)?.value !== expected) return { result: false, write: false };
        put(entries, key, value, ttlMs);
        return { result: true, write: true };
      }),
    delete: (key, expected) =>
      locked((entries) => {
        const entry = entries.get(key);
        if (entry === undefined || (expected !== undefined && entry.value !== expected)) {
          return { result: false, write: false };
        }
        entries.delete(key);
        return { result: true, write: true };
      }),
  };
}
