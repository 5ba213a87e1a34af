/**
 * What the generated worlds share (CONTRIBUTING.md "Model tests"): the service's behaviour, process
 * stalls and store faults, each within the world kinds {@link flagOn} turns on.
 */
import fc from 'fast-check';
import type { StoreFault } from './model-processes.js';
import { flagOn } from './model-run.js';
import type { ServiceBehaviour } from './model-service.js';

/** How long the client is told the service may take to list a new task (`listingDelayMs`), ms. */
export const CLIENT_LISTING_DELAY_MS = 1_000;

/**
 * A service: sort honoured or not, zoned or zoneless times, ids present or not, a listing delay, latency, a
 * queue before POSTs are served.
 * `listWithoutId`: may `GET tasks` leave ids out (default: yes).
 */
export function serviceBehaviour(listWithoutId = true): fc.Arbitrary<ServiceBehaviour> {
  const ids: ServiceBehaviour['ids'][] = ['present', 'absent-on-create'];
  if (listWithoutId) ids.push('absent-on-list');
  if (flagOn('retrieve-without-id')) ids.push('absent-on-retrieve');
  return fc.record({
    sort: flagOn('unsorted-service')
      ? fc.constantFrom<ServiceBehaviour['sort']>('honoured', 'oldest-first', 'updated-newest-first')
      : fc.constant<ServiceBehaviour['sort']>('honoured'),
    zoneless: flagOn('zoneless') ? fc.boolean() : fc.constant(false),
    ids: fc.constantFrom(...ids),
    listingDelayMs: fc.constantFrom(0, 300, CLIENT_LISTING_DELAY_MS),
    latencyMs: fc.constantFrom(1, 20, 300),
    // Past the attempt, past the listing delay, and past both several times over.
    queueMs: flagOn('queued-posts') ? fc.constantFrom(0, 0, 2_500, 9_000) : fc.constant(0),
  });
}

/** A process stall, ms: a GC pause, a busy loop, a VM descheduled; past a lease only with `long-stalls`. */
export function stallMs(): fc.Arbitrary<number> {
  return flagOn('long-stalls') ? fc.constantFrom(50, 1_500, 12_000, 45_000) : fc.constantFrom(50, 400, 1_500);
}

/** A freeze of every process at once (the test's one event loop blocked), ms: their timers then fire late. */
export const freezeMs: fc.Arbitrary<number> = fc.constantFrom(300, 1_500, 12_000);

/**
 * A fault of the shared store: it stalls, fails, or restarts (kept, or emptied with `store-wipe` where
 * `wipes`: a memory store that restarts empty is a create's concern only; receivers lean on the Redis
 * store's and inbox's own reset detection, for Redis to test).
 */
export function storeFault(wipes = true): fc.Arbitrary<StoreFault> {
  const ms = fc.constantFrom(300, 1_500, 5_000);
  const kinds: fc.Arbitrary<StoreFault>[] = [
    ms.map((length) => ({ kind: 'stall', ms: length }) as const),
    ms.map((length) => ({ kind: 'fail', ms: length }) as const),
    ms.map((length) => ({ kind: 'restart', ms: length, persistent: true }) as const),
  ];
  if (wipes && flagOn('store-wipe'))
    kinds.push(ms.map((length) => ({ kind: 'restart', ms: length, persistent: false }) as const));
  return fc.oneof(...kinds);
}

export function describeStoreFault(fault: StoreFault): string {
  if (fault.kind === 'restart')
    return `restart ${fault.persistent ? 'keeping its data' : 'emptied'}, down ${fault.ms} ms`;
  return `${fault.kind} ${fault.ms} ms`;
}

export function describeService(service: ServiceBehaviour): string {
  return [
    `sort ${service.sort}`,
    service.zoneless ? 'zoneless times' : 'zoned times',
    `ids ${service.ids}`,
    `listed after ${service.listingDelayMs} ms`,
    `latency ${service.latencyMs} ms`,
    ...(service.queueMs > 0 ? [`POSTs queued ${service.queueMs} ms`] : []),
  ].join(', ');
}
