import { describe, expect, it, vi } from 'vitest';
import { type EventSlot, TaskEventQueue } from '../../src/webhooks/queue.js';
import { gate } from './fixtures.js';

describe('TaskEventQueue', () => {
  it('runs at most `concurrency` jobs in a slot at once, and 2 × `concurrency` started and not in one', async () => {
    const queue = new TaskEventQueue(3, 100);
    let running = 0;
    let peak = 0;
    const release = gate();
    const third = gate();
    for (let index = 0; index < 10; index++) {
      void queue.push(`task-${index}`, async (slot) => {
        await slot.enter();
        running++;
        peak = Math.max(peak, running);
        if (running === 3) third.open();
        await release.promise;
        running--;
      });
    }
    // The third job started (on a loaded machine the queue's turn may come after any fixed wait), then
    // a while longer, in which a fourth would start if the bound did not hold.
    await third.promise;
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(running).toBe(3);
    expect(queue.running).toBe(9);
    expect(queue.waiting).toBe(1);
    expect(queue.isFull()).toBe(false);
    release.open();
    await queue.idle();
    expect(peak).toBe(3);
    expect(queue.running).toBe(0);
  });

  it('gives a slot left before its job ends to the next task, with at most 4 × `concurrency` jobs started and not ended', async () => {
    const queue = new TaskEventQueue(2, 100);
    const started: string[] = [];
    const finish = gate();
    for (let index = 0; index < 10; index++) {
      void queue.push(`task-${index}`, async (slot) => {
        started.push(`task-${index}`);
        await slot.enter();
        slot.leave();
        slot.leave();
        await finish.promise;
      });
    }
    await vi.waitFor(() => expect(started).toHaveLength(8), { timeout: 10_000 });
    // A while longer, in which a ninth would start if the bound of jobs started and not ended did not hold.
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(started).toEqual(Array.from({ length: 8 }, (_, index) => `task-${index}`));
    expect(queue.running).toBe(8);
    expect(queue.waiting).toBe(2);
    finish.open();
    await queue.idle();
    expect(started).toHaveLength(10);
    expect(queue.running).toBe(0);
  });

  it('starts 2 × `concurrency` jobs ahead of a free slot, which enter one as each slot frees, in the order they asked', async () => {
    const queue = new TaskEventQueue(2, 100);
    const order: string[] = [];
    const release = new Map<string, ReturnType<typeof gate>>();
    const names = ['a', 'b', 'c', 'd', 'e', 'f', 'g'];
    for (const name of names) {
      release.set(name, gate());
      void queue.push(name, async (slot) => {
        order.push(`${name} started`);
        await slot.enter();
        order.push(`${name} in a slot`);
        await release.get(name)?.promise;
        slot.leave();
      });
    }
    await vi.waitFor(() => expect(order).toHaveLength(8), { timeout: 10_000 });
    // A while longer, in which a third slot or a seventh start would happen if the bounds did not hold.
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(order).toEqual([
      ...['a', 'b', 'c', 'd', 'e', 'f'].map((name) => `${name} started`),
      'a in a slot',
      'b in a slot',
    ]);
    expect(queue.isFull()).toBe(false);
    release.get('b')?.open();
    await vi.waitFor(() => expect(order).toContain('c in a slot'), { timeout: 10_000 });
    await vi.waitFor(() => expect(order).toContain('g started'), { timeout: 10_000 });
    expect(order).not.toContain('d in a slot');
    for (const open of release.values()) open.open();
    await queue.idle();
    expect(order.filter((line) => line.endsWith('in a slot'))).toEqual(
      names.map((name) => `${name} in a slot`),
    );
  });

  it('frees the place of a job that ends while waiting for a slot', async () => {
    const queue = new TaskEventQueue(1, 100);
    const holding = gate();
    const ran: string[] = [];
    void queue.push('a', async (slot) => {
      await slot.enter();
      ran.push('a');
      await holding.promise;
    });
    void queue.push('b', async (slot) => {
      void slot.enter().then(() => ran.push('b entered after ending'));
    });
    void queue.push('c', async (slot) => {
      await slot.enter();
      ran.push('c');
    });
    await vi.waitFor(() => expect(ran).toEqual(['a']), { timeout: 10_000 });
    holding.open();
    await queue.idle();
    expect(ran).toEqual(['a', 'c']);
    expect(queue.running).toBe(0);
  });

  it("keeps a task's next job waiting for the end of the one that left its slot", async () => {
    const queue = new TaskEventQueue(2, 100);
    const order: string[] = [];
    const recorded = gate();
    void queue.push('a', async (slot) => {
      await slot.enter();
      order.push('a1 onEvent');
      slot.leave();
      await recorded.promise;
      order.push('a1 recorded');
    });
    void queue.push('a', async (slot) => {
      await slot.enter();
      order.push('a2 onEvent');
    });
    await queue.push('b', async (slot) => {
      await slot.enter();
      order.push('b1 onEvent');
    });
    expect(order).toEqual(['a1 onEvent', 'b1 onEvent']);
    recorded.open();
    await queue.idle();
    expect(order).toEqual(['a1 onEvent', 'b1 onEvent', 'a1 recorded', 'a2 onEvent']);
  });

  it('runs the jobs of one task one at a time, in arrival order, while other tasks go ahead', async () => {
    const queue = new TaskEventQueue(4, 100);
    const order: string[] = [];
    const first = gate();
    void queue.push('a', async () => {
      order.push('a1 start');
      await first.promise;
      order.push('a1 end');
    });
    void queue.push('a', async () => {
      order.push('a2');
    });
    const b = queue.push('b', async () => {
      order.push('b1');
    });
    await b;
    expect(order).toEqual(['a1 start', 'b1']);
    first.open();
    await queue.idle();
    expect(order).toEqual(['a1 start', 'b1', 'a1 end', 'a2']);
  });

  it('starts no job inside push, so the caller answers first', () => {
    const queue = new TaskEventQueue(1, 10);
    let started = false;
    void queue.push('a', async () => {
      started = true;
    });
    expect(started).toBe(false);
  });

  it('reports full once `capacity` jobs are waiting', async () => {
    const queue = new TaskEventQueue(1, 2);
    const release = gate();
    const started = gate();
    void queue.push('a', async (slot) => {
      await slot.enter();
      started.open();
      await release.promise;
    });
    await started.promise; // a is in its slot
    const waitForSlot = async (slot: EventSlot) => {
      await slot.enter();
    };
    void queue.push('b', waitForSlot);
    expect(queue.isFull()).toBe(false);
    void queue.push('c', waitForSlot);
    expect(queue.isFull()).toBe(true);
    await new Promise<void>((resolve) => setImmediate(resolve));
    // b and c started, waiting for a's slot: still full.
    expect(queue.waiting).toBe(0);
    expect(queue.isFull()).toBe(true);
    release.open();
    await queue.idle();
    expect(queue.isFull()).toBe(false);
  });

  it('counts the bytes of jobs waiting and running against maxBytes, and gives them back as each job finishes', async () => {
    const queue = new TaskEventQueue(1, 100, 1000);
    const release = gate();
    const started = gate();
    void queue.push(
      'a',
      () => {
        started.open();
        return release.promise;
      },
      600,
    );
    void queue.push('b', async () => {}, 300);
    expect(queue.bytes).toBe(900);
    expect(queue.hasRoomFor(100)).toBe(true);
    expect(queue.hasRoomFor(101)).toBe(false);
    await started.promise; // a is running, b waits behind it
    expect(queue.bytes).toBe(900);
    release.open();
    await queue.idle();
    expect(queue.bytes).toBe(0);
    expect(queue.hasRoomFor(1000)).toBe(true);
  });

  it('keeps going after a job that throws, and its promise still resolves', async () => {
    const queue = new TaskEventQueue(1, 10);
    const ran: string[] = [];
    const failing = queue.push('a', async () => {
      throw new Error('boom');
    });
    void queue.push('a', async () => {
      ran.push('after');
    });
    await expect(failing).resolves.toBeUndefined();
    await queue.idle();
    expect(ran).toEqual(['after']);
  });

  it('resolves idle at once when nothing is queued', async () => {
    await expect(new TaskEventQueue(1, 1).idle()).resolves.toBeUndefined();
  });
  it('starts a queued job on the next turn of the event loop, not after a timer (no 1 ms clamp per batch)', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'setInterval'] });
    try {
      const queue = new TaskEventQueue(2, 10);
      let started = false;
      const done = queue.push('task-a', async () => {
        started = true;
      });
      expect(started).toBe(false);
      await new Promise<void>((resolve) => setImmediate(resolve));
      await new Promise<void>((resolve) => setImmediate(resolve));
      expect(started).toBe(true);
      await done;
    } finally {
      vi.useRealTimers();
    }
  });
});
