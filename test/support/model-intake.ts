/**
 * The webhook intake's model test (CONTRIBUTING.md "Model tests"; docs/webhooks.md "Duplicates and
 * ordering", "Receiving on several instances", "Catching lost events"): generated worlds run as
 * `fast-check` commands over virtual time, then a last `sync()` and the invariants of `checkIntakeWorld`.
 */
import fc from 'fast-check';
import { DEFAULT_STORE_TIMEOUT_MS } from '../../src/core/store.js';
import {
  describeService,
  describeStoreFault,
  freezeMs,
  serviceBehaviour,
  stallMs,
  storeFault,
} from './model-arbitraries.js';
import { checkIntakeWorld } from './model-intake-checks.js';
import { type IntakeMode, IntakeWorld, type IntakeWorldConfig } from './model-intake-world.js';
import { STALL_POINTS, type StallPoint, type StoreFault } from './model-processes.js';
import {
  advance,
  flagOn,
  InvariantViolation,
  inVirtualTime,
  jump,
  runUntil,
  settle,
  Timeline,
} from './model-run.js';

type Model = { readonly config: IntakeWorldConfig };
type IntakeCommand = fc.AsyncCommand<Model, IntakeWorld>;

const canRestart = (config: IntakeWorldConfig) => config.mode !== 'plain' || config.processes === 1;

class Move implements IntakeCommand {
  constructor(
    readonly task: number,
    readonly choice: number,
    readonly copies: readonly { process: number; delayMs: number }[],
  ) {}
  check = () => true;
  async run(_model: Model, world: IntakeWorld): Promise<void> {
    await world.move(this.task, this.choice, this.copies);
  }
  toString = () =>
    `move(task ${this.task}${this.choice ? `, choice ${this.choice}` : ''}, ${this.copies.length === 0 ? 'lost' : this.copies.map((c) => `p${c.process}+${c.delayMs}`).join(' ')})`;
}

class Wait implements IntakeCommand {
  constructor(readonly ms: number) {}
  check = () => true;
  async run(_model: Model, world: IntakeWorld): Promise<void> {
    world.timeline.note(`wait ${this.ms} ms`);
    await advance(this.ms);
  }
  toString = () => `wait(${this.ms})`;
}

class Stall implements IntakeCommand {
  constructor(
    readonly process: number,
    readonly ms: number,
    readonly point: StallPoint,
  ) {}
  check = () => true;
  async run(_model: Model, world: IntakeWorld): Promise<void> {
    world.stall(this.process, this.ms, this.point);
  }
  toString = () => `stall(p${this.process}, ${this.ms}, ${this.point})`;
}

class Restart implements IntakeCommand {
  constructor(
    readonly process: number,
    readonly downMs: number,
  ) {}
  check = (model: Readonly<Model>) => canRestart(model.config);
  async run(_model: Model, world: IntakeWorld): Promise<void> {
    world.restart(this.process, this.downMs);
  }
  toString = () => `restart(p${this.process}, down ${this.downMs})`;
}

class BreakStore implements IntakeCommand {
  constructor(readonly fault: StoreFault) {}
  check = (model: Readonly<Model>) => model.config.mode !== 'plain';
  async run(_model: Model, world: IntakeWorld): Promise<void> {
    world.store?.inject(this.fault);
    world.storeFaults++;
    world.outages.push({ from: Date.now(), to: Date.now() + this.fault.ms + 7 * DEFAULT_STORE_TIMEOUT_MS });
    if (this.fault.kind === 'restart' && !this.fault.persistent) world.wipes.push(Date.now());
    world.timeline.note(`store: ${describeStoreFault(this.fault)}`);
  }
  toString = () => `store(${describeStoreFault(this.fault)})`;
}

/** Every process frozen at once (the one event loop blocked): timers due meanwhile fire late, together. */
class Freeze implements IntakeCommand {
  constructor(readonly ms: number) {}
  check = () => true;
  async run(_model: Model, world: IntakeWorld): Promise<void> {
    world.timeline.note(`every process frozen for ${this.ms} ms`);
    // The clock jumps while no timer runs: an outage still going on ends that much later by the clock.
    for (const outage of world.outages) if (outage.to >= Date.now()) outage.to += this.ms;
    jump(this.ms);
  }
  toString = () => `freeze(${this.ms})`;
}

class Sync implements IntakeCommand {
  constructor(readonly process: number) {}
  check = () => true;
  async run(_model: Model, world: IntakeWorld): Promise<void> {
    void world.sync(this.process);
  }
  toString = () => `sync(p${this.process})`;
}

class FailOnEvent implements IntakeCommand {
  constructor(readonly process: number) {}
  check = () => true;
  async run(_model: Model, world: IntakeWorld): Promise<void> {
    world.failNextOnEvent(this.process);
    world.timeline.note(`p${this.process}: its next onEvent throws`);
  }
  toString = () => `failOnEvent(p${this.process})`;
}

const processIndex = fc.integer({ min: 1, max: 3 });

/** A webhook's copies: lost (none), once, or duplicated; each to a process after a delay (reordering). */
const copies = fc.array(
  fc.record({ process: processIndex, delayMs: fc.constantFrom(0, 5, 400, 3_000, 20_000) }),
  {
    minLength: 0,
    maxLength: 3,
  },
);

const move = fc
  .tuple(fc.integer({ min: 1, max: 3 }), fc.nat({ max: 3 }), copies)
  .map(([task, choice, sent]) => new Move(task, choice === 3 ? 1 : 0, sent));
const wait = fc.constantFrom(1, 50, 1_000, 6_000, 40_000).map((ms) => new Wait(ms));

/** Moves and waits weigh most: a world is mostly its tasks' lives, with a few faults. */
export const intakeCommands = fc.commands<Model, IntakeWorld, false>(
  [
    move,
    move,
    move,
    move,
    wait,
    wait,
    fc
      .tuple(processIndex, stallMs(), fc.constantFrom(...(Object.keys(STALL_POINTS) as StallPoint[])))
      .map(([process, ms, point]) => new Stall(process, ms, point)),
    fc.tuple(processIndex, fc.constantFrom(0, 2_000)).map(([process, ms]) => new Restart(process, ms)),
    storeFault(false).map((fault) => new BreakStore(fault)),
    freezeMs.map((ms) => new Freeze(ms)),
    processIndex.map((process) => new Sync(process)),
    processIndex.map((process) => new FailOnEvent(process)),
  ],
  { size: '+1' },
);

export function intakeWorldConfig(mode: IntakeMode): fc.Arbitrary<IntakeWorldConfig> {
  return fc.record({
    mode: fc.constant(mode),
    processes: mode === 'plain' ? fc.constant(1) : fc.integer({ min: 1, max: 3 }),
    service: serviceBehaviour(flagOn('list-without-id')),
    tasks: fc.integer({ min: 1, max: 3 }),
    fillers: fc.constantFrom(0, 15),
    storeLatencyMs: fc.constantFrom(0, 2, 20),
    onEventMs: fc.constantFrom(0, 30, 1_500),
    confirm: fc.constantFrom<IntakeWorldConfig['confirm']>('finals', 'none'),
  });
}

let lastTimeline: readonly string[] = [];
export const intakeTimeline = () => lastTimeline;

/** Virtual time the deliveries get to end, ms. */
const DELIVERY_LIMIT_MS = 10 * 60_000;

/** The property of one mode: the world's commands, its deliveries, a last sync, then the invariants. */
export function intakeProperty(mode: IntakeMode) {
  return fc.asyncProperty(intakeWorldConfig(mode), intakeCommands, async (config, commands) => {
    const timeline = new Timeline();
    lastTimeline = timeline.lines;
    await inVirtualTime(async () => {
      timeline.note(
        `world: ${mode}, ${config.processes} process(es), ${config.tasks} task(s) (${config.fillers} older), onEvent ${config.onEventMs} ms, confirm ${config.confirm}; service: ${describeService(config.service)}`,
      );
      const world = new IntakeWorld(config, timeline);
      await world.start();
      await fc.asyncModelRun(() => ({ model: { config }, real: world }), commands);
      if (!(await runUntil(() => !world.sending, DELIVERY_LIMIT_MS))) {
        throw new InvariantViolation(`webhooks still being sent after ${DELIVERY_LIMIT_MS} ms`);
      }
      // Stalls, store faults and restarts end; an inbox's claims by dead processes expire.
      for (const receiver of world.receivers) receiver.gate.disarm();
      await advance(60_000);
      // The last sync, once everything is healthy (a sync that met a stall's last effects is tried again).
      for (let attempt = 0; attempt < 3 && !(await settle(world.sync(1))); attempt++) await advance(10_000);
      for (let round = 0; round < 3; round++) {
        await settle(Promise.all(world.live.map((receiver) => receiver.handler.idle())));
        if ((world.inbox?.open ?? []).every((entry) => entry.state !== 'pending')) break;
        await advance(40_000);
      }
      checkIntakeWorld(world);
    });
  });
}
