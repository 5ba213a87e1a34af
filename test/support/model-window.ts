/**
 * Creation windows over generated services (CONTRIBUTING.md "Model tests"; README "Pagination"): tasks
 * created at generated times, some moved along (their `updatedAt` changes), then `tasks.list({
 * createdAfter, createdBefore })` walked with a generated page size, against a service that sorts as
 * asked or not, dates with a zone or without, and lists a task only after a delay. The invariant: the
 * walk yields every listed task created in the window, once, and none created outside it.
 */
import fc from 'fast-check';
import { DeliveryClient, type SchemaDrift } from '../../src/index.js';
import { CLIENT_LISTING_DELAY_MS, describeService, serviceBehaviour } from './model-arbitraries.js';
import { newWorld, ProcessGate } from './model-processes.js';
import { advance, InvariantViolation, inVirtualTime, settle, Timeline, WORLD_START } from './model-run.js';
import type { ServiceBehaviour } from './model-service.js';
import { ServiceFront } from './model-service.js';
import { orderParams } from './order-params.js';

/** One bound: a task's creation time moved by `offsetMs` (0: exactly on it). */
interface Bound {
  readonly task: number;
  readonly offsetMs: number;
}

interface WindowQuery {
  readonly after: Bound | undefined;
  readonly before: Bound | undefined;
  /** Page size asked for. */
  readonly limit: number;
  /** Virtual time let pass before the walk, ms (tasks newer than the listing delay are not listed yet). */
  readonly waitMs: number;
}

export interface WindowWorld {
  readonly service: ServiceBehaviour;
  /** Each task: the time since the one before, ms, and how many steps it is moved along afterwards. */
  readonly tasks: readonly { readonly gapMs: number; readonly steps: number }[];
  readonly queries: readonly WindowQuery[];
}

/** A bound near a task's creation time; `task` is taken modulo the number of tasks. */
const bound: fc.Arbitrary<Bound | undefined> = fc.option(
  fc.record({ task: fc.nat({ max: 29 }), offsetMs: fc.constantFrom(-1_000, -1, 0, 1, 1_000) }),
  { nil: undefined },
);

export const windowWorld: fc.Arbitrary<WindowWorld> = fc.record({
  service: serviceBehaviour(),
  tasks: fc.array(
    fc.record({ gapMs: fc.constantFrom(0, 1, 700, 60_000, 3_600_000), steps: fc.nat({ max: 3 }) }),
    {
      minLength: 1,
      maxLength: 30,
    },
  ),
  queries: fc.array(
    fc.record({
      after: bound,
      before: bound,
      limit: fc.constantFrom(1, 3, 10),
      waitMs: fc.constantFrom(0, CLIENT_LISTING_DELAY_MS),
    }),
    { minLength: 1, maxLength: 3 },
  ),
});

let lastTimeline: readonly string[] = [];
export const windowTimeline = () => lastTimeline;

const at = (ms: number) => `${ms - WORLD_START} ms`;

/** Runs one window world and checks it. @throws {InvariantViolation} naming each window that skipped a task. */
export async function runWindowWorld(world: WindowWorld): Promise<void> {
  const timeline = new Timeline();
  lastTimeline = timeline.lines;
  await inVirtualTime(async () => {
    newWorld();
    timeline.note(`service: ${describeService(world.service)}`);
    const service = new ServiceFront(world.service);
    const gate = new ProcessGate(1, 1);
    const drifts: SchemaDrift[] = [];
    const client = new DeliveryClient({
      apiKey: service.mock.apiKey,
      sellerId: service.mock.sellerId,
      baseUrl: service.baseUrlOf(gate),
      fetch: service.fetchOf(gate),
      logLevel: 'off',
      listingDelayMs: CLIENT_LISTING_DELAY_MS,
      onDrift: (drift) => void drifts.push(drift),
    });
    // A task is known by its order number: a service may leave `id` out of a listing.
    const created: { id: string; order: string; at: number }[] = [];
    for (const [index, task] of world.tasks.entries()) {
      await advance(task.gapMs);
      const made = await service.seed(orderParams(`ORD-${index + 1}`));
      created.push({ id: made.id ?? '', order: `ORD-${index + 1}`, at: Date.parse(made.createdAt ?? '') });
    }
    for (const [index, task] of world.tasks.entries()) {
      for (let step = 0; step < task.steps; step++) {
        await advance(1_000);
        await service.mock.advance(created[index]?.id ?? '');
      }
    }
    timeline.note(`tasks created at ${created.map((task) => at(task.at)).join(', ')}`);
    const problems: string[] = [];
    for (const query of world.queries) {
      await advance(query.waitMs);
      const instant = (b: Bound | undefined) =>
        b === undefined ? undefined : (created[b.task % created.length]?.at ?? 0) + b.offsetMs;
      const after = instant(query.after);
      let before = instant(query.before);
      if (after !== undefined && before !== undefined && before < after) before = after;
      const listedBefore = Date.now() - world.service.listingDelayMs;
      const inWindow = (time: number) =>
        (after === undefined || time >= after) && (before === undefined || time < before);
      const expected = created
        .filter((task) => inWindow(task.at) && task.at <= listedBefore)
        .map((task) => task.order);
      const seen: string[] = [];
      const params = {
        limit: query.limit,
        ...(after === undefined ? {} : { createdAfter: new Date(after) }),
        ...(before === undefined ? {} : { createdBefore: new Date(before) }),
      };
      const describe = `createdAfter ${after === undefined ? '-' : at(after)}, createdBefore ${before === undefined ? '-' : at(before)}, limit ${query.limit}`;
      const walk = async () => {
        for await (const task of client.tasks.list(params))
          seen.push(task.orderNumber ?? '(no order number)');
      };
      try {
        await settle(walk());
      } catch (error) {
        problems.push(
          `${describe}: the walk failed with ${(error as Error)?.name}: ${(error as Error)?.message}`,
        );
        continue;
      }
      timeline.note(
        `${describe}: ${seen.length} of ${expected.length} expected (drift reports so far: ${drifts.length})`,
      );
      const missed = expected.filter((order) => !seen.includes(order));
      const outside = seen.filter(
        (order) => !inWindow(created.find((task) => task.order === order)?.at ?? Number.NaN),
      );
      const twice = seen.filter((id, index) => seen.indexOf(id) !== index);
      if (missed.length > 0) {
        const times = missed.map((order) => at(created.find((task) => task.order === order)?.at ?? 0));
        problems.push(
          `${describe}: skipped ${missed.length} of ${expected.length} tasks in the window (created at ${times.join(', ')})`,
        );
      }
      if (outside.length > 0)
        problems.push(`${describe}: yielded ${outside.length} task(s) created outside the window`);
      if (twice.length > 0) problems.push(`${describe}: yielded ${twice.length} task(s) twice`);
    }
    if (problems.length > 0) throw new InvariantViolation(problems.join('\n  '));
  });
}

export const windowProperty = fc.asyncProperty(windowWorld, runWindowWorld);
