/**
 * The processes of a generated world (CONTRIBUTING.md "Model tests"): a process is a client (and a webhook
 * handler) with its own memory, in this one Node.js process. Everything it does outside its memory goes
 * through its {@link ProcessGate}: requests to the service, store calls, webhooks reaching it, `onEvent`.
 * A stall holds every such crossing until it ends (as a process frozen by the CPU or a GC pause would);
 * a kill drops them for good (the process is gone; what already reached the service or the store stays).
 * A restart is a kill and a new incarnation with a host name of its own, so that nothing of the old one
 * (an in-flight create it shares by seller scope, a lease renewal timer) is mistaken for the new one.
 */
import type { DeliveryStore } from '../../src/index.js';

/** What crosses a gate: a request (`POST`, `GET`) or a store call (its operation). */
export type Crossing =
  | 'POST'
  | 'GET'
  | 'webhook'
  | 'onEvent'
  | `store ${keyof DeliveryStore}`
  | 'inbox append'
  | 'inbox claim'
  | 'inbox mark';

const isStoreWrite = (what: Crossing) => what.startsWith('store ') && what !== 'store get';

/** Where a stall can start: now, or at the next crossing of a kind, one way. */
export const STALL_POINTS = {
  now: () => false,
  'before a POST leaves': (way: 'out' | 'in', what: Crossing) => way === 'out' && what === 'POST',
  'after a POST is answered': (way: 'out' | 'in', what: Crossing) => way === 'in' && what === 'POST',
  'before a GET leaves': (way: 'out' | 'in', what: Crossing) => way === 'out' && what === 'GET',
  'before a store write': (way: 'out' | 'in', what: Crossing) => way === 'out' && isStoreWrite(what),
  'after a store write': (way: 'out' | 'in', what: Crossing) => way === 'in' && isStoreWrite(what),
  'before onEvent': (way: 'out' | 'in', what: Crossing) => way === 'out' && what === 'onEvent',
  'after an inbox claim': (way: 'out' | 'in', what: Crossing) => way === 'in' && what === 'inbox claim',
} as const;

export type StallPoint = keyof typeof STALL_POINTS;

/** Never settles: what a dead process's calls return. */
const never = <T>(): Promise<T> => new Promise<T>(() => {});

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

let worlds = 0;

/** Starts a new world: the hosts of its incarnations are its own (in-flight creates are shared by host and seller). */
export function newWorld(): void {
  worlds++;
}

/** The crossing between one incarnation of a process and the rest of the world. */
export class ProcessGate {
  /** `p<process>.<incarnation>`, as counterexamples print it. */
  readonly name: string;
  /** The incarnation's host under the service's domain, unique to the world: `p1-2.w7.delivery.test`. */
  readonly host: string;
  #stalledUntil = 0;
  /** Stalls set to start at the next crossing of a kind. */
  readonly #stallsAt: { point: StallPoint; ms: number }[] = [];
  #dead = false;
  #diedAt: number | undefined;
  /** Told of each stall as it starts: from when until when (ms since the epoch). */
  onStall: ((from: number, until: number) => void) | undefined;
  readonly #deaths: Array<() => void> = [];

  constructor(process: number, incarnation: number) {
    this.name = `p${process}.${incarnation}`;
    this.host = `p${process}-${incarnation}.w${worlds}.delivery.test`;
  }

  get dead(): boolean {
    return this.#dead;
  }

  /** When the incarnation was killed (ms since the epoch, the world's clock). */
  get diedAt(): number | undefined {
    return this.#diedAt;
  }

  /**
   * Freezes the incarnation for `ms` (a stall already running is extended, never shortened): now, or at
   * its next crossing of `point` (a request about to leave, a store answer just in, …).
   */
  stall(ms: number, point: StallPoint = 'now'): void {
    if (point !== 'now') {
      this.#stallsAt.push({ point, ms });
      return;
    }
    this.#stalledUntil = Math.max(this.#stalledUntil, Date.now() + ms);
    this.onStall?.(Date.now(), this.#stalledUntil);
  }

  /** Drops the stalls set for a crossing that has not come (a world's events are over). */
  disarm(): void {
    this.#stallsAt.length = 0;
  }

  /** Starts the stall set for this crossing, if any. */
  #cross(way: 'out' | 'in', what: Crossing): void {
    const index = this.#stallsAt.findIndex(({ point }) => STALL_POINTS[point](way, what));
    const stall = this.#stallsAt[index];
    if (stall === undefined) return;
    this.#stallsAt.splice(index, 1);
    this.stall(stall.ms);
  }

  kill(): void {
    if (this.#dead) return;
    this.#dead = true;
    this.#diedAt = Date.now();
    for (const died of this.#deaths.splice(0)) died();
  }

  /** Resolves once the incarnation is killed. */
  death(): Promise<void> {
    return this.#dead ? Promise.resolve() : new Promise<void>((resolve) => this.#deaths.push(resolve));
  }

  /** Resolves when the incarnation runs (after any stall); never once it is dead. */
  async ready(): Promise<void> {
    for (;;) {
      if (this.#dead) return never();
      const left = this.#stalledUntil - Date.now();
      if (left <= 0) return;
      await sleep(left);
    }
  }

  /** `work` sent out once the incarnation runs, its outcome let in once it runs again. */
  async cross<T>(what: Crossing, work: () => Promise<T>): Promise<T> {
    this.#cross('out', what);
    await this.ready();
    let outcome: { ok: true; value: T } | { ok: false; error: unknown };
    try {
      outcome = { ok: true, value: await work() };
    } catch (error) {
      outcome = { ok: false, error };
    }
    this.#cross('in', what);
    await this.ready();
    if (outcome.ok) return outcome.value;
    throw outcome.error;
  }
}

/** `key` as the shared store holds it: the incarnation's host swapped for the service's. */
function sharedKey(key: string, host: string): string {
  return key.replace(`//${host}/`, '//delivery.test/');
}

/**
 * `store` as one incarnation sees it: every call crosses its gate, and keys name the service's host
 * (each incarnation has a host of its own, see the module comment; the keys are otherwise unchanged).
 */
export function storeOfProcess(store: DeliveryStore, gate: ProcessGate): DeliveryStore {
  const k = (key: string) => sharedKey(key, gate.host);
  const seen: DeliveryStore = {
    setIfAbsent: (key, value, ttlMs) =>
      gate.cross('store setIfAbsent', () => store.setIfAbsent(k(key), value, ttlMs)),
    get: (key) => gate.cross('store get', () => store.get(k(key))),
    compareAndSet: (key, expected, value, ttlMs) =>
      gate.cross('store compareAndSet', () => store.compareAndSet(k(key), expected, value, ttlMs)),
    delete: (key, expected) => gate.cross('store delete', () => store.delete(k(key), expected)),
  };
  const { setIfAbsentThenGet, compareAndSetReleasing } = store;
  if (setIfAbsentThenGet !== undefined) {
    seen.setIfAbsentThenGet = (key, value, ttlMs, readKey) =>
      gate.cross('store setIfAbsentThenGet', () =>
        setIfAbsentThenGet.call(store, k(key), value, ttlMs, k(readKey)),
      );
  }
  if (compareAndSetReleasing !== undefined) {
    seen.compareAndSetReleasing = (key, expected, value, ttlMs, fence) =>
      gate.cross('store compareAndSetReleasing', () =>
        compareAndSetReleasing.call(store, k(key), expected, value, ttlMs, { ...fence, key: k(fence.key) }),
      );
  }
  return seen;
}

/** A fault of the shared store, from now for `ms`. */
export type StoreFault =
  | { kind: 'stall'; ms: number }
  | { kind: 'fail'; ms: number }
  | { kind: 'restart'; ms: number; persistent: boolean };

/**
 * A shared store whose server can stall (calls held until it ends, as a frozen Redis), fail (calls
 * rejected at once) or restart (down for `ms`, then back with its data, or empty without persistence).
 * `make` builds the store's data, anew after a restart without persistence.
 */
export class FaultyStore implements DeliveryStore {
  #inner: DeliveryStore;
  readonly #make: () => DeliveryStore;
  #stalledUntil = 0;
  #downUntil = 0;
  /** Each call's round trip, ms. */
  readonly #latencyMs: number;
  /** Restarts without persistence so far. */
  wipes = 0;
  /** When each restart without persistence happened (`Date.now()`). */
  readonly wipedAt: number[] = [];

  constructor(make: () => DeliveryStore, latencyMs = 0) {
    this.#make = make;
    this.#inner = make();
    this.#latencyMs = latencyMs;
  }

  inject(fault: StoreFault): void {
    const until = Date.now() + fault.ms;
    if (fault.kind === 'stall') this.#stalledUntil = Math.max(this.#stalledUntil, until);
    else this.#downUntil = Math.max(this.#downUntil, until);
    if (fault.kind === 'restart' && !fault.persistent) {
      this.#inner = this.#make();
      this.wipes++;
      this.wipedAt.push(Date.now());
    }
  }

  /** `work` on the server behind this store (an inbox beside it): its faults apply. */
  serve<T>(work: () => Promise<T>): Promise<T> {
    return this.#call(() => work());
  }

  async #call<T>(work: (store: DeliveryStore) => Promise<T>): Promise<T> {
    if (this.#latencyMs > 0) await sleep(this.#latencyMs / 2);
    for (;;) {
      if (Date.now() < this.#downUntil) throw new Error('connect ECONNREFUSED (the store is down)');
      const left = this.#stalledUntil - Date.now();
      if (left <= 0) break;
      await sleep(left);
    }
    const result = await work(this.#inner);
    if (this.#latencyMs > 0) await sleep(this.#latencyMs / 2);
    return result;
  }

  setIfAbsent(key: string, value: string, ttlMs: number): Promise<boolean> {
    return this.#call((store) => store.setIfAbsent(key, value, ttlMs));
  }

  get(key: string): Promise<string | undefined> {
    return this.#call((store) => store.get(key));
  }

  compareAndSet(...args: Parameters<DeliveryStore['compareAndSet']>): Promise<boolean> {
    return this.#call((store) => store.compareAndSet(...args));
  }

  delete(key: string, expected?: string): Promise<boolean> {
    return this.#call((store) => store.delete(key, expected));
  }
}
