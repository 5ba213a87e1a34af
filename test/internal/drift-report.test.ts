import { describe, expect, it } from 'vitest';
import type { SchemaDrift } from '../../src/index.js';
import { driftReporter, MAX_WARNED_PATHS } from '../../src/internal/drift-report.js';
import { LevelLogger } from '../../src/internal/logger.js';
import { Redactor } from '../../src/internal/redact.js';
import type { Drift } from '../../src/schemas/tolerant-read.js';

/** A reporter whose logger warnings and `onDrift` calls are recorded. */
function recordingReporter() {
  const warnings: string[] = [];
  const listened: SchemaDrift[] = [];
  const sink = { debug() {}, info() {}, warn: (line: string) => warnings.push(line), error() {} };
  const report = driftReporter(new LevelLogger(sink, 'warn', new Redactor([])), (drift) =>
    listened.push(drift),
  );
  return { report, warnings, listened };
}

const drift = (path: string, action: Drift['action'] = 'coerced'): Drift => ({
  path,
  expected: 'string',
  received: 'number',
  action,
});

describe('the drift reporter', () => {
  it('warns once per (operation, path), array indices folded, and tells every drift to onDrift', () => {
    const { report, warnings, listened } = recordingReporter();
    report('tasks.list', [drift('tasks.0.totalAmount'), drift('tasks.1.totalAmount')], undefined);
    report('tasks.list', [drift('tasks.7.totalAmount', 'omitted')], undefined);
    report('tasks.retrieve', [drift('totalAmount'), drift('totalAmount')], undefined);
    report('tasks.list', [drift('tasks.2.collectCash')], undefined);

    expect(warnings).toHaveLength(3);
    expect(warnings[0]).toContain(
      'Schema drift in tasks.list: tasks.0.totalAmount came as number, read as string',
    );
    expect(warnings[1]).toContain('Schema drift in tasks.retrieve: totalAmount');
    expect(warnings[2]).toContain('tasks.2.collectCash');
    expect(listened).toHaveLength(6);
    expect(listened[2]).toEqual({
      operation: 'tasks.list',
      path: 'tasks.7.totalAmount',
      expected: 'string',
      received: 'number',
      action: 'omitted',
    });
  });

  it(`remembers at most ${MAX_WARNED_PATHS} paths: past them, new paths are not warned about, and remembered ones stay quiet`, () => {
    const { report, warnings, listened } = recordingReporter();
    const paths = Array.from({ length: MAX_WARNED_PATHS + 500 }, (_, index) => `field${index}`);
    for (const path of paths) report('tasks.retrieve', [drift(path)], undefined);
    // Each of the first MAX_WARNED_PATHS paths once; none after.
    expect(warnings).toHaveLength(MAX_WARNED_PATHS);
    expect(warnings.at(-1)).toContain(`field${MAX_WARNED_PATHS - 1} `);
    // Every path again: the remembered ones are not warned twice, the others still not at all.
    for (const path of paths) report('tasks.retrieve', [drift(path)], undefined);
    expect(warnings).toHaveLength(MAX_WARNED_PATHS);
    // onDrift hears every drift, with or without a warning.
    expect(listened).toHaveLength(2 * paths.length);
  });

  it('keeps one set per reporter: a second client or handler warns again', () => {
    const first = recordingReporter();
    const second = recordingReporter();
    first.report('wallet.retrieveBalance', [drift('walletAmount')], undefined);
    second.report('wallet.retrieveBalance', [drift('walletAmount')], undefined);
    expect(first.warnings).toHaveLength(1);
    expect(second.warnings).toHaveLength(1);
  });
});
