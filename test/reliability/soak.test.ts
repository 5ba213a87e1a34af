import { describe, expect, it } from 'vitest';
import { formatSoakReport, runSoak } from '../../scripts/soak.js';

describe('exactly-once creation under a seeded fault schedule', () => {
  it('creates 150 orders through ~20 % ambiguous faults with no duplicate, no lost order and one fee per task', async () => {
    const report = await runSoak({ creates: 150, seed: 7, faultRate: 0.2 });
    expect(report.problems, formatSoakReport(report)).toEqual([]);
    expect(report.duplicates).toBe(0);
    expect(report.lostOrders).toBe(0);
    expect(report.feesCharged).toBe(report.tasksCreated);
    const faults = Object.values(report.faults).reduce((sum, count) => sum + count, 0);
    expect(faults).toBeGreaterThanOrEqual(15);
    // The schedule exercised reconciliation and resends, not only clean creates.
    expect(report.outcomes.reconciled ?? 0).toBeGreaterThan(0);
    expect(report.outcomes.resent ?? 0).toBeGreaterThan(0);
    // Every order ended with a task, except those the SDK reported as unknown or rate limited.
    const unresolved = Object.entries(report.outcomes)
      .filter(([kind]) => kind.startsWith('outcome unknown') || kind.startsWith('error'))
      .reduce((sum, [, count]) => sum + count, 0);
    expect(report.tasksCreated).toBe(
      report.creates - unresolved + (report.outcomes['outcome unknown (task exists)'] ?? 0),
    );
  }, 60_000);
});
