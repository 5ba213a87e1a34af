/**
 * The dashboard's table of tasks (docs/sandbox.md, "Dashboard"): rows newest first, the search and status
 * filters, and a flag on every task whose order number another task carries too.
 */
import {
  byId,
  el,
  emptyRow,
  type Json,
  kwdOfFils,
  localTime,
  MAX_TASKS,
  type TaskEntry,
  tasks,
  text,
} from './dom.js';

/** The tasks the service holds, which may be more than the page holds. */
let taskTotal = 0;

/** Sets how many tasks the service holds (from `GET /_sandbox/tasks`). */
export function setTaskTotal(total: number): void {
  taskTotal = total;
}

const taskRows = new Map<string, HTMLTableRowElement>();

export function statusBadge(status: string): HTMLElement {
  return el('span', { class: `badge status-${/^[a-z_]+$/.test(status) ? status : 'other'}` }, status);
}

function historyTimeline(task: Json): HTMLElement {
  const history = Array.isArray(task.statusHistory) ? (task.statusHistory as Json[]) : [];
  const list = el('ol', { class: 'mini-timeline', 'aria-label': 'Status history' });
  for (const entry of history) {
    list.append(el('li', { title: localTime(entry.timestamp) }, text(entry.status)));
  }
  return list;
}

/** How many tasks the page holds with `orderNumber` (at most the newest {@link MAX_TASKS}). */
export function tasksOfOrder(orderNumber: unknown): number {
  if (typeof orderNumber !== 'string' || orderNumber === '') return 0;
  let count = 0;
  for (const entry of tasks.values()) if (entry.task.orderNumber === orderNumber) count++;
  return count;
}

/** The flag of a task whose order number `count` tasks carry; `undefined` for one. */
export function sameOrderFlag(count: number): HTMLElement | undefined {
  if (count < 2) return undefined;
  return el(
    'span',
    { class: 'badge flag', 'data-flag': 'same-order', title: 'One order should make one task' },
    `${count} tasks of this order`,
  );
}

function taskMatches(entry: TaskEntry): boolean {
  const search = byId<HTMLInputElement>('task-search').value.trim().toLowerCase();
  const status = byId<HTMLSelectElement>('task-status').value;
  const { task } = entry;
  if (status !== '' && task.status !== status) return false;
  if (search === '') return true;
  return [task.orderNumber, task.customerName, task.customerNumber, task.id, task.deliveryId, task.status]
    .map((value) => text(value).toLowerCase())
    .some((value) => value.includes(search));
}

function taskRow(entry: TaskEntry): HTMLTableRowElement {
  const { task } = entry;
  const id = text(task.id);
  const link = el('a', { href: `#task/${encodeURIComponent(id)}` }, text(task.orderNumber) || id);
  return el(
    'tr',
    { 'data-task-id': id },
    el(
      'td',
      { 'data-label': 'Order number' },
      el('div', {}, link, sameOrderFlag(tasksOfOrder(task.orderNumber))),
    ),
    el(
      'td',
      { 'data-label': 'Customer' },
      el('div', {}, text(task.customerName), el('br'), el('small', {}, text(task.customerNumber))),
    ),
    el(
      'td',
      { 'data-label': 'Status' },
      el('div', {}, statusBadge(text(task.status)), historyTimeline(task)),
    ),
    el('td', { 'data-label': 'Fee', class: 'number' }, kwdOfFils(entry.feeFils)),
    el('td', { 'data-label': 'Created' }, localTime(task.createdAt)),
  );
}

function updateTaskCount(): void {
  const shown = [...taskRows.values()].filter((row) => !row.hidden).length;
  const beyond = taskTotal > tasks.size ? ` (the newest ${tasks.size} of ${taskTotal})` : '';
  byId('task-count').textContent = `${shown} of ${tasks.size} tasks shown${beyond}`;
}

function upsertTaskRow(entry: TaskEntry, atTop: boolean): void {
  const id = text(entry.task.id);
  const row = taskRow(entry);
  row.hidden = !taskMatches(entry);
  const old = taskRows.get(id);
  const body = byId<HTMLTableElement>('tasks-table').tBodies[0];
  if (!body) return;
  body.querySelector('tr.empty')?.remove();
  if (old) old.replaceWith(row);
  else if (atTop) body.prepend(row);
  else body.append(row);
  taskRows.set(id, row);
}

/** Draws every row again from the tasks the page holds. */
export function renderTasks(): void {
  const body = byId<HTMLTableElement>('tasks-table').tBodies[0];
  body?.replaceChildren();
  taskRows.clear();
  for (const entry of tasks.values()) upsertTaskRow(entry, false);
  if (tasks.size === 0) {
    body?.append(emptyRow(5, 'None yet: a task created through the API (POST /tasks) shows here at once.'));
  }
  updateTaskCount();
}

/** Hides the rows the search and status filters leave out. */
export function applyFilter(): void {
  for (const [id, row] of taskRows) {
    const entry = tasks.get(id);
    row.hidden = entry === undefined || !taskMatches(entry);
  }
  updateTaskCount();
}

/** Adds or updates a task's row (a new one goes first), and the flags of the tasks sharing its order. */
export function addTask(entry: TaskEntry): void {
  const id = text(entry.task.id);
  if (!tasks.has(id)) {
    // Newest first: a new task goes to the front.
    const rest = [...tasks];
    tasks.clear();
    tasks.set(id, entry);
    for (const [key, value] of rest) tasks.set(key, value);
    taskTotal += 1;
    if (tasks.size > MAX_TASKS) {
      const oldest = [...tasks.keys()].at(-1);
      if (oldest !== undefined) {
        tasks.delete(oldest);
        taskRows.get(oldest)?.remove();
        taskRows.delete(oldest);
      }
    }
  } else tasks.set(id, entry);
  upsertTaskRow(entry, true);
  for (const [otherId, other] of tasks) {
    if (otherId !== id && other.task.orderNumber === entry.task.orderNumber) upsertTaskRow(other, false);
  }
  updateTaskCount();
}
