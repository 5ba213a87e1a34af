import { describe, expect, it, vi } from 'vitest';
import { TaskEventQueue } from '../../src/webhooks/queue.js';
import { gate } from './fixtures.js';

describe('TaskEventQueue', () => {
  it('runs at most `concurrency` jobs at once', async () => {
    const queue = new TaskEventQueue(3, 100);
    let running = 0;
    let peak = 0;
    const release = gate();
    const third = gate();
    for (let index = 0; index < 10; index++) {
      void queue.push(`task-${index}`, async () => {
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
    expect(queue.waiting).toBe(7);
    release.open();
    await queue.idle();
    expect(peak).toBe(3);
    expect(queue.running).toBe(0);
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
    void queue.push('a', () => {
      started.open();
      return release.promise;
    });
    await started.promise; // a is running
    void queue.push('b', async () => {});
    expect(queue.isFull()).toBe(false);
    void queue.push('c', async () => {});
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
