/**
 * The create path's model test (CONTRIBUTING.md "Model tests"): generated worlds of processes, stalls,
 * restarts, store faults and service faults (the mock's own rules), run as `fast-check` commands over
 * virtual time, then held to the invariants of README "Exactly-once creation":
 * - at most one task per order, plus one per repeat delivery (a second one is a failure, silent or told by
 *   `DuplicateTaskError` afterwards: the world's service never makes one the SDK did not ask for);
 * - every create that resolved, resolved with its order's task (the same one for every first delivery);
 * - a repeat delivery resolves with a task of its own, created after it began, never `DuplicateTaskError`;
 * - a create fails only with the SDK's typed errors, and within its `totalTimeout`;
 * - every job ends.
 */
import fc from 'fast-check';
import { DeliveryError } from '../../src/index.js';
import { stopLateCommitChecks } from '../../src/resources/task-creation/late-commit.js';
import { FRESH_STORE_MS } from '../../src/resources/task-creation/lease-terms.js';
import type { TaskWithId } from '../../src/schemas.js';
import type { MockFaultRule } from '../../src/testing.js';
import {
  CLIENT_LISTING_DELAY_MS,
  describeService,
  describeStoreFault,
  freezeMs,
  serviceBehaviour,
  stallMs,
  storeFault,
} from './model-arbitraries.js';
import {
  ATTEMPT_TIMEOUT_MS,
  type CreateJob,
  CreateWorld,
  type CreateWorldConfig,
  type LoggedReport,
} from './model-create-world.js';
import { STALL_POINTS, type StallPoint, type StoreFault } from './model-processes.js';
import {
  advance,
  flagOn,
  InvariantViolation,
  inVirtualTime,
  jump,
  runUntil,
  Timeline,
  WORLD_START,
} from './model-run.js';

/** Orders of one world. */
const ORDERS = 3;
/** Virtual time every job has to end, ms. */
const SETTLE_LIMIT_MS = 20 * 60_000;
/** Virtual time let pass after the jobs end, so that a POST still held by a stall lands, ms. */
const AFTERMATH_MS = 3 * 60_000;

type Model = {
  readonly config: CreateWorldConfig;
  /** A process was killed: a late POST's report needs the process that sent it living on. */
  restarted: boolean;
  /** A POST was held past the lookups ({@link LatePost}): no process is killed after it. */
  late: boolean;
  /** The store restarted empty: a lookup then trusts the listing, which a late POST is not on yet. */
  wiped: boolean;
};
type CreateCommand = fc.AsyncCommand<Model, CreateWorld>;

const canRestart = (config: CreateWorldConfig) => config.sharedStore || flagOn('restart-without-store');

/**
 * A service that queues POSTs (served even after their client has gone): only a living client, holding
 * its POST open, can wait for it. A process killed, or stalled past its lease, with its POST queued, and a
 * store restarted empty meanwhile, are past the assumptions docs/several-instances.md states for them
 * (the POST reaches the service within the record's `until` and the listing delay), so these worlds kill
 * no process, wipe no store, and stall none past {@link LONG_PAUSE_MS}.
 */
const queued = (model: Readonly<Model>) => model.config.service.queueMs > 0;
/** A pause that outlives a lease renewal, ms. */
const LONG_PAUSE_MS = 3_000;
const withinCover = (model: Readonly<Model>, pauseMs: number) => pauseMs < LONG_PAUSE_MS || !queued(model);

class Create implements CreateCommand {
  constructor(
    readonly process: number,
    readonly order: number,
    readonly repeat: boolean,
    readonly totalTimeout: number | undefined,
  ) {}
  check = () => true;
  async run(_model: Model, world: CreateWorld): Promise<void> {
    world.create(this.process, this.order, this.repeat, this.totalTimeout);
  }
  toString(): string {
    const options = [
      this.repeat ? 'repeatDelivery' : '',
      this.totalTimeout ? `totalTimeout ${this.totalTimeout}` : '',
    ];
    return `create(p${this.process}, ORD-${this.order}${options
      .filter(Boolean)
      .map((o) => `, ${o}`)
      .join('')})`;
  }
}

class Wait implements CreateCommand {
  constructor(readonly ms: number) {}
  check = () => true;
  async run(_model: Model, world: CreateWorld): Promise<void> {
    world.timeline.note(`wait ${this.ms} ms`);
    await advance(this.ms);
  }
  toString = () => `wait(${this.ms})`;
}

class Stall implements CreateCommand {
  constructor(
    readonly process: number,
    readonly ms: number,
    readonly point: StallPoint,
  ) {}
  check = (model: Readonly<Model>) => withinCover(model, this.ms);
  async run(_model: Model, world: CreateWorld): Promise<void> {
    world.stall(this.process, this.ms, this.point);
  }
  toString = () => `stall(p${this.process}, ${this.ms}, ${this.point})`;
}

/**
 * A race the lease must win: a process creates an order and stalls as its POST is about to leave; after
 * `afterMs` another process (a retry behind a load balancer) creates the same order.
 */
class Compete implements CreateCommand {
  constructor(
    readonly first: number,
    readonly second: number,
    readonly order: number,
    readonly stall: { ms: number; point: StallPoint },
    readonly afterMs: number,
  ) {}
  check = (model: Readonly<Model>) => withinCover(model, this.stall.ms);
  async run(_model: Model, world: CreateWorld): Promise<void> {
    world.create(this.first, this.order, false, undefined);
    world.stall(this.first, this.stall.ms, this.stall.point);
    await advance(this.afterMs);
    world.create(this.second, this.order, false, undefined);
  }
  toString = () =>
    `compete(ORD-${this.order}: p${this.first} stalls ${this.stall.ms} ms ${this.stall.point}, p${this.second} after ${this.afterMs} ms)`;
}

/** Every process frozen at once (the one event loop blocked): timers due meanwhile fire late, together. */
class Freeze implements CreateCommand {
  constructor(readonly ms: number) {}
  check = (model: Readonly<Model>) => withinCover(model, this.ms);
  async run(_model: Model, world: CreateWorld): Promise<void> {
    world.timeline.note(`every process frozen for ${this.ms} ms`);
    world.freezes.push({ from: Date.now(), to: Date.now() + this.ms });
    jump(this.ms);
  }
  toString = () => `freeze(${this.ms})`;
}

class Restart implements CreateCommand {
  constructor(
    readonly process: number,
    readonly downMs: number,
  ) {}
  check = (model: Readonly<Model>) => canRestart(model.config) && !queued(model) && !model.late;
  async run(model: Model, world: CreateWorld): Promise<void> {
    model.restarted = true;
    world.restart(this.process, this.downMs);
  }
  toString = () => `restart(p${this.process}, down ${this.downMs})`;
}

class BreakStore implements CreateCommand {
  readonly #wipes: boolean;
  constructor(readonly fault: StoreFault) {
    this.#wipes = fault.kind === 'restart' && !fault.persistent;
  }
  check = (model: Readonly<Model>) =>
    model.config.sharedStore && !((queued(model) || model.late) && this.#wipes);
  async run(model: Model, world: CreateWorld): Promise<void> {
    if (this.#wipes) model.wiped = true;
    world.store?.inject(this.fault);
    world.timeline.note(`store: ${describeStoreFault(this.fault)}`);
  }
  toString = () => `store(${describeStoreFault(this.fault)})`;
}

class BreakService implements CreateCommand {
  constructor(readonly rule: MockFaultRule) {}
  check = () => true;
  async run(_model: Model, world: CreateWorld): Promise<void> {
    world.service.mock.inject(this.rule);
    world.timeline.note(`service: next ${String(this.rule.operation)} gets ${JSON.stringify(this.rule)}`);
  }
  toString = () => `service(${JSON.stringify(this.rule)})`;
}

/**
 * The next POST served `ms` after it arrived, its client gone by then: past the lookup that lets a create
 * send again, so a second task may be made, which the late-commit check must report (docs/exactly-once.md
 * "A late commit"). Its report comes from the process that sent the POST again, in the background: a
 * process killed loses it (the docs say so), so worlds with a late POST kill none; nor do they empty the
 * store, whose first creates after it trust a lookup that a late POST is not listed in yet
 * (docs/several-instances.md "Redis restarted empty").
 */
class LatePost implements CreateCommand {
  constructor(readonly ms: number) {}
  check = (model: Readonly<Model>) => !model.restarted && !model.wiped;
  async run(model: Model, world: CreateWorld): Promise<void> {
    model.late = true;
    world.service.holdNextPost(this.ms);
    world.timeline.note(`service: the next POST is served ${this.ms} ms after it arrives`);
  }
  toString = () => `latePost(${this.ms})`;
}

/** The mock's fault rules a create meets: lost answers (ambiguous), refusals (not processed), slow answers. */
const serviceFault: fc.Arbitrary<MockFaultRule> = fc.constantFrom<MockFaultRule>(
  { kind: 'commit-then-drop', operation: 'tasks.create' },
  { kind: 'network-error', operation: 'tasks.create' },
  { kind: 'status', status: 503, operation: 'tasks.create' },
  { kind: 'status', status: 500, operation: 'tasks.create' },
  { kind: 'delay', ms: ATTEMPT_TIMEOUT_MS + 500, operation: 'tasks.create' },
  { kind: 'status', status: 503, operation: 'tasks.list' },
  { kind: 'network-error', operation: 'tasks.list', times: 3 },
);

const processIndex = fc.integer({ min: 1, max: 4 });

const points = (Object.keys(STALL_POINTS) as StallPoint[]).filter(
  (point) => point !== 'before onEvent' && point !== 'after an inbox claim',
);

/**
 * A stall and where it starts. Between a create's last lease check and its POST leaving the lease
 * assumes under 250 ms (docs/several-instances.md "Stalls"): longer only with `stall-before-post`.
 */
const stallAt: fc.Arbitrary<{ ms: number; point: StallPoint }> = fc
  .tuple(fc.constantFrom(...points), stallMs(), fc.constantFrom(50, 200))
  .map(([point, ms, short]) => ({
    point,
    ms: point === 'before a POST leaves' && !flagOn('stall-before-post') ? Math.min(ms, short) : ms,
  }));

const create = fc
  .tuple(
    processIndex,
    fc.integer({ min: 1, max: ORDERS }),
    flagOn('repeat-delivery') ? fc.boolean() : fc.constant(false),
    fc.option(fc.constantFrom(3_000, 15_000), { nil: undefined }),
  )
  .map(([process, order, repeat, totalTimeout]) => new Create(process, order, repeat, totalTimeout));
const wait = fc.constantFrom(1, 10, 250, 1_200, 4_000, 30_000).map((ms) => new Wait(ms));

/** Creates and waits weigh most: a world is mostly its callers, with a few faults. */
export const createCommands = fc.commands<Model, CreateWorld, false>(
  [
    create,
    create,
    create,
    wait,
    wait,
    fc.tuple(processIndex, stallAt).map(([process, { ms, point }]) => new Stall(process, ms, point)),
    fc
      .tuple(
        processIndex,
        processIndex,
        fc.integer({ min: 1, max: ORDERS }),
        stallAt,
        fc.constantFrom(500, 11_000, 20_000),
      )
      .map(([first, second, order, stall, after]) => new Compete(first, second, order, stall, after)),
    freezeMs.map((ms) => new Freeze(ms)),
    fc.tuple(processIndex, fc.constantFrom(0, 500, 3_000)).map(([process, ms]) => new Restart(process, ms)),
    storeFault().map((fault) => new BreakStore(fault)),
    serviceFault.map((rule) => new BreakService(rule)),
    ...(flagOn('late-posts') ? [fc.constantFrom(20_000, 60_000).map((ms) => new LatePost(ms))] : []),
  ],
  { size: '+1' },
);

export const createWorldConfig: fc.Arbitrary<CreateWorldConfig> = fc.record({
  processes: fc.integer({ min: 1, max: 4 }),
  sharedStore: fc.boolean(),
  service: serviceBehaviour(),
  storeLatencyMs: fc.constantFrom(0, 2, 20),
});

/** The timeline of the world that ran last. */
let lastTimeline: readonly string[] = [];
export const createTimeline = () => lastTimeline;

/** The property: runs the world's commands, lets every job end, then checks the invariants. */
export const createProperty = fc.asyncProperty(
  createWorldConfig,
  createCommands,
  async (config, commands) => {
    const timeline = new Timeline();
    lastTimeline = timeline.lines;
    await inVirtualTime(async () => {
      // Without a shared store the processes share nothing: one, unless restarts are on.
      const effective = { ...config, processes: canRestart(config) ? config.processes : 1 };
      timeline.note(
        `world: ${effective.processes} process(es), ${effective.sharedStore ? `a shared store (round trip ${effective.storeLatencyMs} ms)` : 'own memory stores'}; service: ${describeService(effective.service)}`,
      );
      const world = new CreateWorld(effective, timeline);
      const model: Model = { config: effective, restarted: false, late: false, wiped: false };
      await fc.asyncModelRun(() => ({ model, real: world }), commands);
      for (const { gate } of world.incarnations) gate.disarm();
      const ended = await runUntil(() => world.settled, SETTLE_LIMIT_MS);
      await advance(AFTERMATH_MS);
      try {
        checkCreateWorld(world, ended);
      } finally {
        // A check still waiting would look up in the next world's service.
        stopLateCommitChecks();
      }
    });
  },
);

function describeJob(job: CreateJob): string {
  const attempts = job.attempts.map(
    (a) => `${a.process} @${a.start - (job.attempts[0]?.start ?? 0)}: ${a.outcome ?? 'unfinished'}`,
  );
  return `job ${job.id} (${job.orderNumber}${job.repeat ? ', repeat' : ''}): ${attempts.join('; ')}`;
}

/** True when, without a shared store, two incarnations' creates of `order` could not see each other's task. */
function concurrentWithoutStore(world: CreateWorld, order: string): boolean {
  if (world.config.sharedStore) return false;
  const attempts = world.jobs.filter((job) => job.orderNumber === order).flatMap((job) => job.attempts);
  const posts = world.service.creates.filter((post) => post.orderNumber === order);
  return attempts.some((later) =>
    attempts.some(
      (earlier) =>
        earlier !== later &&
        earlier.process !== later.process &&
        earlier.start <= later.start &&
        ((earlier.end ?? Number.POSITIVE_INFINITY) > later.start ||
          posts.some(
            (post) => post.process === earlier.process && post.at > later.start - CLIENT_LISTING_DELAY_MS,
          )),
    ),
  );
}

/** The job whose POST made `task` (each job's body names it in `specialNotes`). */
const creatorOf = (task: { specialNotes?: unknown }) =>
  Number(/^job (\d+)$/.exec(String(task.specialNotes))?.[1]);

export function checkCreateWorld(world: CreateWorld, ended: boolean): void {
  const problems: string[] = [];
  if (!ended)
    problems.push(
      `jobs still running after ${SETTLE_LIMIT_MS} ms: ${world.jobs
        .filter((job) => !job.result)
        .map(describeJob)
        .join(' | ')}`,
    );
  const tasks = world.service.mock.tasks;
  const resolved = (job: CreateJob): TaskWithId | undefined =>
    job.result !== undefined && 'task' in job.result ? job.result.task : undefined;
  for (let order = 1; order <= ORDERS; order++) {
    const orderNumber = `ORD-${order}`;
    const jobs = world.jobs.filter((job) => job.orderNumber === orderNumber);
    const own = tasks.filter((task) => task.orderNumber === orderNumber);
    const told = jobs.some((job) =>
      job.errors.some((error) => error instanceof Error && error.name === 'DuplicateTaskError'),
    );
    const describeTasks = (list: typeof own) =>
      list
        .map(
          (t) =>
            `${t.id} (POST of job ${creatorOf(t)}, created at ${Date.parse(t.createdAt ?? '') - WORLD_START} ms)`,
        )
        .join(', ');
    // First deliveries: one task for them all; every repeat delivery: one task of its own.
    const firsts = own.filter((task) => !world.jobs[creatorOf(task) - 1]?.repeat);
    // A repeat delivery run again by the next incarnation of a process without a shared store (or after
    // the store restarted empty) cannot know what the one before sent (docs/exactly-once.md, "A repeat
    // delivery"): its tasks are not counted.
    // Nor, with a shared store, one whose process died once its POST had made a task: run again, it is a
    // delivery like any other (docs/exactly-once.md, "A repeat delivery").
    const died = (job: CreateJob) => job.attempts.filter((attempt) => attempt.outcome === 'its process died');
    const rerunWithoutStore = (job: CreateJob) =>
      died(job).length > 0 &&
      (!world.config.sharedStore ||
        (world.store?.wipedAt ?? []).some((at) => at > (job.attempts[0]?.start ?? 0)) ||
        own.some(
          (task) =>
            creatorOf(task) === job.id &&
            died(job).some((attempt) => Date.parse(task.createdAt ?? '') <= (attempt.end ?? 0)),
        ));
    const extra =
      Math.max(0, firsts.length - 1) +
      jobs
        .filter((job) => job.repeat && !rerunWithoutStore(job))
        .reduce((sum, job) => sum + Math.max(0, own.filter((t) => creatorOf(t) === job.id).length - 1), 0);
    // Without a shared store, processes creating one order at once cannot know of each other (README
    // "Running several instances"): held to the invariants only when one runs after the other.
    const concurrent = concurrentWithoutStore(world, orderNumber);
    // The service in these worlds never creates a task the SDK did not ask for: a second task is the
    // SDK's own doing, whether or not a caller was told (DuplicateTaskError) afterwards.
    // A store restarted empty forgot the order: creates look first for FRESH_STORE_MS after its records
    // begin again, and later ones trust it; a lookup cannot see a task the service does not list yet
    // (docs/several-instances.md, "Redis restarted empty": the two limits).
    const createdAt = (task: (typeof own)[number]) => Date.parse(task.createdAt ?? '');
    // The later create's lookup came one round trip before its task (its POST) was made.
    const unseenFor = world.config.service.listingDelayMs + 2 * world.config.service.latencyMs;
    const forgotten =
      firsts.length > 1 &&
      (world.store?.wipedAt ?? []).some((at) =>
        firsts.some(
          (earlier) =>
            createdAt(earlier) < at &&
            firsts.some(
              (later) =>
                createdAt(later) > at &&
                (createdAt(later) > at + FRESH_STORE_MS ||
                  createdAt(later) <= createdAt(earlier) + unseenFor),
            ),
        ),
      );
    // A POST served past the lookups (held late, or queued past a POST the SDK abandoned while the store
    // did not renew its lease) made a second task: allowed only when reported, every task of the order
    // named by a late-commit check, or the check told to have failed (docs/exactly-once.md "A late
    // commit"). A service that serves each POST as it arrives never excuses one.
    const late =
      world.config.service.queueMs > 0 ||
      world.service.latePosts.some((post) => post.orderNumber === orderNumber);
    // Each report names the tasks its lookup listed: `(no id)` for one listed without its id.
    const ownIds = new Set(own.map((task) => task.id));
    const namesAll = (report: LoggedReport) => {
      const ids = (report.fields?.taskIds as string[] | undefined) ?? [];
      return (
        ids.length >= firsts.length &&
        ids.every((id) => id === '(no id)' || ownIds.has(id)) &&
        firsts.every((task) => ids.includes(task.id ?? '') || ids.includes('(no id)'))
      );
    };
    const reported =
      late &&
      world.reports.some(
        (report) =>
          (report.level === 'error' && report.fields?.orderNumber === orderNumber && namesAll(report)) ||
          report.message.includes(`Order ${orderNumber}: late-commit check `),
      );
    if (extra > 0 && !concurrent && !forgotten && !reported) {
      const how = told ? 'told afterwards by DuplicateTaskError' : 'silent: no caller was told';
      problems.push(
        `${orderNumber} has ${extra} task(s) too many (${how}): ${describeTasks(own)}; ${jobs.map(describeJob).join(' | ')}`,
      );
    }
    // With repeat deliveries the order has several tasks: a first delivery may read back any of them.
    const firstIds = new Set(
      jobs
        .filter((job) => !job.repeat)
        .map(resolved)
        .filter((task) => task !== undefined)
        .map((task) => task.id),
    );
    if (firstIds.size > 1 && !concurrent && !forgotten && !reported && !jobs.some((job) => job.repeat))
      problems.push(
        `${orderNumber}: first deliveries resolved with different tasks ${[...firstIds].join(', ')}`,
      );
    for (const job of jobs) {
      const task = resolved(job);
      const stored = task === undefined ? undefined : tasks.find((candidate) => candidate.id === task.id);
      if (task !== undefined && stored?.orderNumber !== orderNumber) {
        problems.push(
          `${describeJob(job)} resolved with task ${task.id}, which is ${stored ? `of ${stored.orderNumber}` : 'not on the service'}`,
        );
      }
      // Creates of one order in one process share one request (README "Exactly-once creation"), repeat
      // deliveries too: one that joined another's flight resolves with that one's task.
      const joined = (creator: number) =>
        world.jobs[creator - 1]?.repeat === true &&
        world.jobs[creator - 1]?.attempts.some((other) =>
          job.attempts.some(
            (own) =>
              own.process === other.process &&
              own.start <= (other.end ?? Number.POSITIVE_INFINITY) &&
              other.start <= (own.end ?? Number.POSITIVE_INFINITY),
          ),
        );
      if (
        job.repeat &&
        stored !== undefined &&
        creatorOf(stored) !== job.id &&
        !joined(creatorOf(stored)) &&
        !concurrent &&
        // A late POST of an earlier delivery (held, or queued past its abandonment), committed after
        // this one began, reads as its own (docs/exactly-once.md, "A late commit").
        !reported &&
        world.config.service.queueMs === 0 &&
        !world.service.latePosts.some(
          (post) =>
            post.orderNumber === orderNumber &&
            Math.abs(post.servedAt - Date.parse(stored.createdAt ?? '')) <= 1,
        )
      ) {
        problems.push(
          `${describeJob(job)}: a repeat delivery resolved with a task its POST did not make (${describeTasks([stored])})`,
        );
      }
      for (const error of job.errors) {
        if (!(error instanceof DeliveryError))
          problems.push(`${describeJob(job)}: failed with an untyped ${String(error)}`);
        if (job.repeat && error instanceof Error && error.name === 'DuplicateTaskError') {
          problems.push(`${describeJob(job)}: a repeat delivery got DuplicateTaskError`);
        }
      }
      if (job.totalTimeout !== undefined) {
        for (const attempt of job.attempts) {
          // A frozen process keeps no deadline: the time frozen does not count.
          const end = attempt.end ?? Number.POSITIVE_INFINITY;
          const frozen = world.freezes.reduce(
            (sum, freeze) =>
              sum + Math.max(0, Math.min(end, freeze.to) - Math.max(attempt.start, freeze.from)),
            0,
          );
          const took = end - attempt.start - frozen;
          if (attempt.outcome !== 'its process died' && took > job.totalTimeout + 50) {
            problems.push(
              `${describeJob(job)}: an attempt took ${took} ms, past its totalTimeout of ${job.totalTimeout} ms`,
            );
          }
        }
      }
    }
  }
  if (problems.length > 0) throw new InvariantViolation(problems.join('\n  '));
}
