/**
 * The invariants of an intake world (docs/webhooks.md "Duplicates and ordering", "Receiving on several
 * instances", "Catching lost events"; docs/several-instances.md "Durable intake"), each with the
 * exceptions those pages document and no other:
 * - once: a (task, status) reaches `onEvent` once per scope: the process for a plain handler (its
 *   memory is its own), every process sharing the store otherwise. Documented exceptions: a status
 *   processed by a process that died afterwards (its record may not have been written), an `onEvent`
 *   that ran past `eventTimeoutMs` (given up on, counted failed), and without an inbox, store outages
 *   (the process's memory stands in: once per process then, and what it processed meanwhile is not
 *   in the store, so it may come again);
 * - in order: a status older along the lifecycle never reaches `onEvent` after a newer one of the task
 *   that moved its order, nothing after a confirmed final status (same scopes and exceptions);
 * - never lost in silence: every webhook answered 200 reached `onEvent`, or is accounted for by a
 *   counter (a duplicate of a status processed, a status older than one processed), `onError`, an
 *   inbox's failed events, or (plain handler, shared store) the death of the process holding it;
 *   a live handler's counters add up to what it answered 200 and what its syncs passed on;
 * - the last sync (everything healthy) brings every task's final status to `onEvent`;
 * - an inbox holds no pending event at the end.
 */
import { DEFAULT_STORE_TIMEOUT_MS } from '../../src/core/store.js';
import { isFinalStatus, lifecycleRank } from '../../src/schemas/lifecycle.js';
import { EVENT_TIMEOUT_MS, type IntakeWorld, type OnEventCall } from './model-intake-world.js';
import { InvariantViolation, WORLD_START } from './model-run.js';

const rankOf = (status: string) => lifecycleRank(status);

/**
 * True when `later` must not follow `earlier` for one task (docs/webhooks.md "Duplicates and ordering"):
 * after a confirmed final status nothing; after a final status from a body (no confirmation) nothing but
 * another final one; otherwise an older status along the path, but only after an event that moves the
 * order: a confirmed one, or any without confirmation (with confirmation, an unconfirmed event could be
 * forged and moves nothing).
 */
function outOfOrder(earlier: OnEventCall, later: OnEventCall, confirming: boolean): boolean {
  if (isFinalStatus(earlier.status) && earlier.confirmed) return true;
  if (isFinalStatus(earlier.status) && !confirming) return !isFinalStatus(later.status);
  if (confirming && !earlier.confirmed) return false;
  const before = rankOf(earlier.status);
  const after = rankOf(later.status);
  return before !== undefined && after !== undefined && after < before;
}

const describeCall = (call: OnEventCall) =>
  `${call.process} ${call.source} ${call.kind}${call.status === call.kind ? '' : `→${call.status}`} @${call.start - WORLD_START}`;

export function checkIntakeWorld(world: IntakeWorld): void {
  const problems: string[] = [];
  const { mode } = world.config;
  const gateOf = (process: string) =>
    world.receivers.find((receiver) => receiver.gate.name === process)?.gate;
  /** The process died after this call began: what it processed may not be recorded. */
  const diedAfter = (call: OnEventCall) =>
    (gateOf(call.process)?.diedAt ?? Number.POSITIVE_INFINITY) >= call.start &&
    gateOf(call.process)?.diedAt !== undefined;
  const late = (call: OnEventCall) => call.end === undefined || call.end - call.invokedAt > EVENT_TIMEOUT_MS;
  const completed = world.calls.filter((call) => !call.failed && !late(call));
  const outage = mode === 'shared' && world.storeFaults > 0;
  const confirming = world.config.confirm !== 'none';
  const scopeOf = (process: string) => (mode === 'plain' || outage ? process : 'all');

  // Once, and in order, per scope and task.
  const groups = new Map<string, OnEventCall[]>();
  for (const call of completed) {
    const key = `${scopeOf(call.process)}\n${call.taskId}`;
    groups.set(key, [...(groups.get(key) ?? []), call]);
  }
  /** Processed (or recorded, just after) on the process's memory while the store did not answer: the store never learns of it. */
  const inOutage = (call: OnEventCall) =>
    mode === 'shared' &&
    world.outages.some(
      (outage) =>
        outage.to >= call.start && outage.from <= (call.end ?? call.start) + 2 * DEFAULT_STORE_TIMEOUT_MS,
    );
  for (const calls of groups.values()) {
    calls.sort((a, b) => a.start - b.start);
    for (const [index, call] of calls.entries()) {
      // A process standing in with its memory neither tells the store nor hears from it.
      if (inOutage(call)) continue;
      const earlier = calls.slice(0, index).filter((previous) => !diedAfter(previous) && !inOutage(previous));
      const twice = earlier.find((previous) => previous.status === call.status);
      // A store restarted empty forgets what was processed: a repeat then is reported only if detected.
      const forgotten =
        twice !== undefined &&
        world.wipes.some((at) => at > twice.start && at < call.start) &&
        !world.receivers.some(
          (receiver) => ((receiver.handler.stats as unknown as Record<string, unknown>).resets ?? 0) !== 0,
        );
      if (twice !== undefined && forgotten) {
        problems.push(
          `task ${call.taskId}: ${call.status} reached onEvent again after the store restarted empty, and no handler reported the reset (stats.resets)`,
        );
        continue;
      }
      if (twice !== undefined && world.wipes.some((at) => at > twice.start && at < call.start)) continue;
      if (twice !== undefined) {
        const outages = world.outages.map(
          (outage) => `${outage.from - WORLD_START}–${outage.to - WORLD_START}`,
        );
        problems.push(
          `task ${call.taskId}: ${call.status} reached onEvent twice (${describeCall(twice)}; ${describeCall(call)})${outages.length > 0 ? `; outages ${outages.join(', ')} ms` : ''}`,
        );
        continue;
      }
      const newer = earlier.find((previous) => outOfOrder(previous, call, confirming));
      if (newer !== undefined) {
        problems.push(
          `task ${call.taskId}: ${describeCall(call)} reached onEvent after ${describeCall(newer)}`,
        );
      }
    }
  }

  // Never lost in silence.
  for (const copy of world.copies) {
    if (copy.answered !== 200) continue;
    const scope = mode === 'plain' ? copy.to : 'all';
    const inScope = (process: string) => scope === 'all' || process === scope;
    const reached = world.calls.some(
      (call) =>
        inScope(call.process) &&
        call.taskId === copy.taskId &&
        (call.kind === copy.kind || call.status === copy.kind),
    );
    // Dropped as older than a status that moved the task's order (counted in `outOfOrder`), even one whose
    // onEvent then failed (reported to onError).
    const overtaken = world.calls.some(
      (call) =>
        inScope(call.process) &&
        call.taskId === copy.taskId &&
        outOfOrder(call, { ...call, status: copy.kind, confirmed: false }, confirming),
    );
    const reported = world.errors.some(
      (error) => inScope(error.process) && error.taskId === copy.taskId && error.kind === copy.kind,
    );
    const keptFailed = (world.inbox?.open ?? []).some(
      (entry) => entry.state === 'failed' && entry.taskId === copy.taskId && entry.kind === copy.kind,
    );
    const diedHolding = mode !== 'inbox' && gateOf(copy.to)?.diedAt !== undefined;
    if (!(reached || overtaken || reported || keptFailed || diedHolding)) {
      problems.push(
        `task ${copy.taskId}: ${copy.kind} answered 200 by ${copy.to} at ${copy.sentAt - WORLD_START} ms never reached onEvent and was not reported`,
      );
    }
  }

  // A live handler's counters add up (without an inbox, whose events any process may claim).
  if (mode !== 'inbox') {
    for (const receiver of world.live) {
      const { processed, duplicates, outOfOrder: late, failed } = receiver.handler.stats;
      const answered = world.copies.filter(
        (copy) => copy.to === receiver.gate.name && copy.answered === 200,
      ).length;
      const synced = receiver.syncs.reduce(
        (sum, result) => sum + result.processed + result.duplicates + result.outOfOrder + result.failed,
        0,
      );
      if (processed + duplicates + late + failed !== answered + synced) {
        problems.push(
          `${receiver.gate.name}: counters ${JSON.stringify({ processed, duplicates, outOfOrder: late, failed })} do not add up to ${answered} webhooks answered 200 and ${synced} sync events`,
        );
      }
    }
  }

  // The last sync brings every final status.
  const tasks = world.service.mock.tasks;
  for (const task of tasks) {
    const status = task.status ?? '';
    if (!isFinalStatus(status)) continue;
    const arrived = world.calls.some(
      (call) => call.taskId === task.id && call.status === status && !call.failed,
    );
    // A listing without ids cannot be acted on: a drift report on `id` says so.
    const reported =
      world.errors.some((error) => error.taskId === task.id) ||
      world.drifts.some((drift) => /(^|\.)_?id$/.test(drift.path));
    if (!arrived && !reported) {
      problems.push(
        `task ${task.id}: its final status ${status} never reached onEvent, even after the last sync`,
      );
    }
  }

  const pending = (world.inbox?.open ?? []).filter((entry) => entry.state === 'pending');
  if (pending.length > 0) {
    problems.push(
      `the inbox still holds ${pending.length} pending event(s): ${pending.map((entry) => `${entry.taskId} ${entry.kind}`).join(', ')}`,
    );
  }
  if (problems.length > 0) throw new InvariantViolation(problems.join('\n  '));
}
