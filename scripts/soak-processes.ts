/**
 * The multi-process soak (`npm run soak -- --processes 4 --redis`): N worker processes, each a
 * `DeliveryClient` over one real Redis (`REDIS_URL`, or a redis-server started here), create the same
 * orders at once against the mock served on 127.0.0.1, behind a proxy that gives about 20 % of the
 * orders an ambiguous fault on their first POST. Prints creates, tasks, duplicates, lost orders, fees
 * and outcomes; the caller exits non-zero on a duplicate, a lost order or a fee that does not match.
 */
import { ambiguousCreateFaults, startCreateWorker } from '../test/support/create-workers.js';
import { startHostileServer } from '../test/support/hostile-server.js';
import { startRedisServer } from '../test/support/redis-server.js';
import type { SoakReport } from './soak-report.js';

/** Options of {@link runProcessSoak}. */
export interface ProcessSoakOptions {
  processes: number;
  /** Orders, each created by every process. */
  orders: number;
  seed: number;
  faultRate: number;
}

export async function runProcessSoak(options: ProcessSoakOptions): Promise<SoakReport> {
  const [redis, hostile] = await Promise.all([startRedisServer(), startHostileServer()]);
  const faults = ambiguousCreateFaults(options.seed, options.faultRate);
  hostile.use(faults.handler);
  const orders = Array.from(
    { length: options.orders },
    (_, index) => `SOAK-P-${String(index).padStart(5, '0')}`,
  );
  const prefix = `dts-soak-${process.pid}-${Date.now()}:`;
  const started = performance.now();
  try {
    const outcomes = (
      await Promise.all(
        Array.from(
          { length: options.processes },
          () =>
            startCreateWorker({
              baseUrl: hostile.url,
              apiKey: hostile.mock.apiKey,
              sellerId: hostile.mock.sellerId,
              redisUrl: redis.url,
              prefix,
              orders,
              timeoutMs: 2000,
            }).done,
        ),
      )
    ).flat();
    const elapsedMs = performance.now() - started;
    const problems: string[] = [];
    let duplicates = 0;
    let lostOrders = 0;
    const byOutcome: Record<string, number> = {};
    for (const orderNumber of orders) {
      const tasks = hostile.mock.tasks.filter((task) => task.orderNumber === orderNumber);
      if (tasks.length > 1) {
        duplicates++;
        problems.push(`${orderNumber}: ${tasks.length} tasks`);
      }
      for (const outcome of outcomes.filter((each) => each.orderNumber === orderNumber)) {
        const kind =
          outcome.taskId !== undefined ? 'created (same task in every process)' : `error: ${outcome.error}`;
        byOutcome[kind] = (byOutcome[kind] ?? 0) + 1;
        if (outcome.taskId !== undefined && outcome.taskId !== tasks[0]?.id) {
          lostOrders++;
          problems.push(
            `${orderNumber}: a process got ${outcome.taskId}, the service holds ${tasks[0]?.id ?? 'none'}`,
          );
        }
        // Saying the outcome is unknown, or that the store could not be reached (nothing sent), is honest.
        const undecided =
          outcome.error === 'TaskCreationOutcomeUnknownError' || outcome.error === 'StoreUnavailableError';
        if (outcome.taskId === undefined && tasks.length > 0 && !undecided) {
          lostOrders++;
          problems.push(`${orderNumber}: ${outcome.error} while the task exists`);
        }
      }
    }
    if (hostile.mock.wallet.feesCharged !== hostile.mock.tasks.length) {
      problems.push(`${hostile.mock.wallet.feesCharged} fees for ${hostile.mock.tasks.length} tasks`);
    }
    return {
      creates: outcomes.length,
      tasksCreated: hostile.mock.tasks.length,
      duplicates,
      lostOrders,
      feesCharged: hostile.mock.wallet.feesCharged,
      outcomes: byOutcome,
      faults: { ...faults.counts },
      elapsedMs,
      problems,
    };
  } finally {
    await hostile.close();
    await redis.stop().catch(() => {});
  }
}
