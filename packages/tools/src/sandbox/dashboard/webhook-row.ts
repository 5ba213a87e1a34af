/** A webhook delivery as the dashboard shows it: its answer in words, and its row in the webhooks table. */
import { control, type Delivery, el, notice } from './dom.js';
import { statusBadge } from './tasks-table.js';

/** The endpoint's answer to a delivery: its status, or the failure that ended it. */
export function answerText(delivery: Delivery): string {
  if (delivery.error !== undefined) {
    const kind = /no answer within/.test(delivery.error) ? 'timeout' : 'connection error';
    return delivery.responseStatus === undefined
      ? `${kind}: ${delivery.error}`
      : `${delivery.responseStatus}, then ${kind}`;
  }
  return String(delivery.responseStatus ?? '');
}

/** The row of a delivery, with its body and a button that sends it again. */
export function deliveryRow(delivery: Delivery): HTMLTableRowElement {
  const failed = delivery.error !== undefined || (delivery.responseStatus ?? 0) >= 300;
  const resend = el(
    'button',
    { type: 'button', 'aria-label': `Send delivery ${delivery.seq} again` },
    'Send again',
  );
  resend.addEventListener('click', () => {
    resend.disabled = true;
    control(`webhooks/${delivery.seq}/resend`, { method: 'POST' })
      .catch((error: unknown) => notice(error instanceof Error ? error.message : String(error)))
      .finally(() => {
        resend.disabled = false;
      });
  });
  const details = el(
    'details',
    {},
    el('summary', {}, 'Body'),
    el('pre', { class: 'json' }, JSON.stringify(delivery.body, null, 2)),
  );
  return el(
    'tr',
    { 'data-seq': String(delivery.seq), class: failed ? 'failed' : 'ok' },
    el(
      'td',
      { 'data-label': '#' },
      el(
        'div',
        {},
        String(delivery.seq),
        delivery.resentFrom === undefined
          ? undefined
          : el('small', {}, ` (again of #${delivery.resentFrom})`),
      ),
    ),
    el('td', { 'data-label': 'Event' }, statusBadge(delivery.status)),
    el(
      'td',
      { 'data-label': 'Task' },
      el('a', { href: `#task/${encodeURIComponent(delivery.taskId)}` }, delivery.taskId),
    ),
    el('td', { 'data-label': 'Answer', class: 'answer' }, answerText(delivery)),
    el('td', { 'data-label': 'Latency', class: 'number latency' }, `${delivery.durationMs} ms`),
    el('td', { 'data-label': 'Request body' }, details),
    el('td', { 'data-label': 'Action' }, resend),
  );
}
