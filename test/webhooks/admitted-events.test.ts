/**
 * The events an inbox handler keeps parsed between admission and its claim (`admitted-events.ts`): found by
 * the entry's arrival and body, taken once, bounded by count and bytes, the oldest pushed out first.
 */
import { describe, expect, it } from 'vitest';
import { AdmittedEvents } from '../../src/webhooks/admitted-events.js';
import { parseWebhookEvent } from '../../src/webhooks/event.js';

const entryOf = (taskId: string, receivedAt = 1_000) => {
  const body = JSON.stringify({ _id: taskId, status: 'assigned' });
  return { id: `id-${taskId}`, body, receivedAt, attempts: 1, event: parseWebhookEvent(body) };
};

describe('AdmittedEvents', () => {
  it('gives an event kept back once, for the same body and arrival only', () => {
    const admitted = new AdmittedEvents(10, 1_000_000);
    const entry = entryOf('A');
    admitted.keep(entry, entry.event);
    expect(admitted.take({ ...entry, receivedAt: 1_001 })).toBeUndefined();
    expect(admitted.take({ ...entry, body: `${entry.body} ` })).toBeUndefined();
    expect(admitted.take(entry)).toBe(entry.event);
    expect(admitted.take(entry)).toBeUndefined();
  });

  it('forgets an event whose entry was not stored', () => {
    const admitted = new AdmittedEvents(10, 1_000_000);
    const entry = entryOf('A');
    admitted.keep(entry, entry.event);
    admitted.forget(entry);
    expect(admitted.take(entry)).toBeUndefined();
  });

  it('keeps maxEvents at most, the oldest pushed out first', () => {
    const admitted = new AdmittedEvents(2, 1_000_000);
    const entries = ['A', 'B', 'C'].map((taskId) => entryOf(taskId));
    for (const entry of entries) admitted.keep(entry, entry.event);
    expect(entries.map((entry) => admitted.take(entry)?.taskId)).toEqual([undefined, 'B', 'C']);
  });

  it('keeps maxBytes of entries at most, the oldest pushed out first', () => {
    const entries = ['A', 'B', 'C'].map((taskId) => entryOf(taskId));
    const size = `${entries[0]?.receivedAt}\n${entries[0]?.body}`.length;
    const admitted = new AdmittedEvents(10, 2 * size);
    for (const entry of entries) admitted.keep(entry, entry.event);
    expect(entries.map((entry) => admitted.take(entry)?.taskId)).toEqual([undefined, 'B', 'C']);
  });
});
