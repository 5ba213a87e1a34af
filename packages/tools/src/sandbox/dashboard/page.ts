/**
 * The sandbox dashboard's script (docs/sandbox.md, "Dashboard"), built by `scripts/build-dashboard.ts`
 * into `dashboard.js` and served by the sandbox at `/_dashboard/dashboard.js`.
 */
import { HAPPY_PATH, movesFrom, TASK_STATUSES } from 'delivery-task-sdk/schemas';
import {
  type ActiveFault,
  byId,
  control,
  type Delivery,
  el,
  emptyRow,
  type Json,
  kuwaitTime,
  kwdOfFils,
  localTime,
  notice,
  REQUESTS_PAGE,
  readTokenFromFragment,
  setKuwaitTime,
  summaryList,
  type TaskEntry,
  tasks,
  text,
  useToken,
} from './dom.js';
import { readEvents } from './event-stream.js';
import { addTask, applyFilter, renderTasks, setTaskTotal, tasksOfOrder } from './tasks-table.js';
import {
  loadFaults,
  markFaultEdited,
  renderFaults,
  renderFees,
  renderRequests,
  renderWallet,
  showOlderRequests,
} from './views.js';
import { answerText, deliveryRow } from './webhook-row.js';

// ---------------------------------------------------------------- state

let deliveries: Delivery[] = [];
let webhookUrl: string | null = null;
let currentView = 'tasks';
let currentTaskId: string | undefined;

function onTask(entry: TaskEntry): void {
  addTask(entry);
  const id = text(entry.task.id);
  if (currentView === 'task' && currentTaskId === id) void showTask(id);
  if (currentView === 'wallet') renderFees();
}

// ---------------------------------------------------------------- task page

async function showTask(id: string): Promise<void> {
  let view: { task: Json; feeFils: number; events: Array<{ status: string; timestamp: string }> };
  try {
    view = await control(`tasks/${encodeURIComponent(id)}`);
  } catch (error) {
    byId('task-heading').textContent = 'Task not found';
    byId('task-result').textContent = error instanceof Error ? error.message : String(error);
    return;
  }
  const { task } = view;
  byId('task-heading').textContent = `Task ${text(task.orderNumber) || id}`;
  const sameOrder = tasksOfOrder(task.orderNumber);
  summaryList(byId('task-summary'), [
    ['Id', text(task.id)],
    ['Order number', `${text(task.orderNumber)}${sameOrder > 1 ? ` (${sameOrder} tasks carry it)` : ''}`],
    ['Status', text(task.status)],
    ['Customer', `${text(task.customerName)} ${text(task.customerNumber)}`.trim()],
    ['Fee', kwdOfFils(view.feeFils)],
    ['Created', localTime(task.createdAt)],
    ['Updated', localTime(task.updatedAt)],
  ]);
  byId('task-timeline').replaceChildren(
    ...view.events.map((event) =>
      el(
        'li',
        {},
        el('span', { class: 'badge' }, event.status),
        ' ',
        el('time', { datetime: event.timestamp }, localTime(event.timestamp)),
      ),
    ),
  );
  byId('task-json').textContent = JSON.stringify(task, null, 2);
  renderMoves(text(task.status), view.events.at(-1)?.status);
  renderTaskWebhooks(id);
}

/** Offers only the moves the sandbox accepts from the task's status (`movesFrom`, core/lifecycle). */
function renderMoves(status: string, lastEvent: string | undefined): void {
  const moves: readonly string[] = movesFrom(status, lastEvent);
  const target = byId<HTMLSelectElement>('advance-target');
  target.replaceChildren(...moves.map((move) => el('option', { value: move }, move)));
  target.disabled = moves.length === 0;
  byId<HTMLButtonElement>('advance-to').disabled = moves.length === 0;
  byId<HTMLButtonElement>('advance-one').disabled = !moves.some((move) =>
    (HAPPY_PATH as readonly string[]).includes(move),
  );
  byId<HTMLButtonElement>('task-cancel').disabled = !moves.includes('cancelled');
  byId<HTMLButtonElement>('task-fail').disabled = !moves.includes('failed');
}

function renderTaskWebhooks(id: string): void {
  const own = deliveries.filter((delivery) => delivery.taskId === id);
  byId('task-webhooks').replaceChildren(
    ...(own.length === 0
      ? [el('li', {}, webhookUrl === null ? 'No webhook URL configured (--webhook-url).' : 'None yet.')]
      : own.map((delivery) =>
          el(
            'li',
            {},
            `#${delivery.seq} ${delivery.status}: `,
            answerText(delivery),
            ` in ${delivery.durationMs} ms`,
          ),
        )),
  );
}

async function moveTask(status?: string): Promise<void> {
  if (currentTaskId === undefined) return;
  const result = byId('task-result');
  result.textContent = 'Moving…';
  try {
    const task = await control<Json>(`tasks/${encodeURIComponent(currentTaskId)}/advance`, {
      method: 'POST',
      ...(status === undefined ? {} : { body: { status } }),
    });
    result.textContent = `Now ${text(task.status)}${status === 'inprogress' || status === 'pickup_location_reached' ? ` (event ${status} sent)` : ''}.`;
  } catch (error) {
    result.textContent = error instanceof Error ? error.message : String(error);
  }
}

// ---------------------------------------------------------------- webhooks

function renderWebhooks(): void {
  byId('webhook-url').textContent =
    webhookUrl === null
      ? 'No webhook URL: set one below (or start the sandbox with --webhook-url <url>) to have task changes POSTed to your endpoint.'
      : `POSTed to ${webhookUrl}; each answer within 5 s, no retry.`;
  const input = byId<HTMLInputElement>('webhook-url-input');
  if (document.activeElement !== input) input.value = webhookUrl ?? '';
  const body = byId<HTMLTableElement>('webhooks-table').tBodies[0];
  const none =
    webhookUrl === null ? 'None yet: no webhook URL is set.' : 'None yet: move a task to send one.';
  body?.replaceChildren(
    ...(deliveries.length === 0 ? [emptyRow(7, none)] : deliveries.toReversed().map(deliveryRow)),
  );
}

/** `POST /_sandbox/webhook-url`: where webhooks go from now on (`null`: nowhere). */
async function changeWebhookUrl(url: string | null): Promise<void> {
  try {
    webhookUrl = (
      await control<{ webhookUrl: string | null }>('webhook-url', { method: 'POST', body: { url } })
    ).webhookUrl;
    notice('');
  } catch (error) {
    notice(error instanceof Error ? error.message : String(error));
  }
  renderWebhooks();
}

function onDelivery(delivery: Delivery): void {
  // Applied again on top of a list that may hold it already.
  if (deliveries.some((known) => known.seq === delivery.seq)) return;
  deliveries.push(delivery);
  if (deliveries.length > 1000) deliveries.shift();
  const table = byId<HTMLTableElement>('webhooks-table').tBodies[0];
  table?.querySelector('tr.empty')?.remove();
  if (currentView === 'webhooks') table?.prepend(deliveryRow(delivery));
  if (currentView === 'task' && currentTaskId === delivery.taskId) renderTaskWebhooks(delivery.taskId);
}

// ---------------------------------------------------------------- views

/** Task and webhook events received while a list is read (by {@link loadAll}): applied again on top of it. */
const sinceListed = new Set<Array<() => void>>();

/** Applies a live event now, and again on top of each list being read, which may predate it. */
function applyLive(apply: () => void): void {
  for (const replay of sinceListed) replay.push(apply);
  apply();
}

async function loadAll(): Promise<void> {
  const replay: Array<() => void> = [];
  sinceListed.add(replay);
  try {
    const [list, hooks] = await Promise.all([
      control<{ tasks: TaskEntry[]; total: number }>('tasks'),
      control<{ webhookUrl: string | null; deliveries: Delivery[] }>('webhooks'),
    ]);
    tasks.clear();
    for (const entry of list.tasks) tasks.set(text(entry.task.id), entry);
    setTaskTotal(list.total);
    deliveries = hooks.deliveries;
    webhookUrl = hooks.webhookUrl;
    renderTasks();
    for (const apply of replay) apply();
  } finally {
    sinceListed.delete(replay);
  }
  await showView();
}

async function showView(): Promise<void> {
  const hash = decodeURIComponent(location.hash.replace(/^#/, ''));
  const [view = 'tasks', ...rest] = hash.split('/');
  currentView = ['tasks', 'task', 'webhooks', 'wallet', 'faults', 'requests'].includes(view) ? view : 'tasks';
  currentTaskId = currentView === 'task' ? rest.join('/') : undefined;
  for (const section of document.querySelectorAll<HTMLElement>('.view')) {
    section.hidden = section.id !== `view-${currentView}`;
  }
  for (const link of document.querySelectorAll<HTMLAnchorElement>('nav a')) {
    if (link.dataset.view === currentView || (currentView === 'task' && link.dataset.view === 'tasks')) {
      link.setAttribute('aria-current', 'page');
    } else link.removeAttribute('aria-current');
  }
  try {
    if (currentView === 'task' && currentTaskId !== undefined) {
      byId('task-result').textContent = '';
      await showTask(currentTaskId);
    } else if (currentView === 'webhooks') renderWebhooks();
    else if (currentView === 'wallet') await renderWallet();
    else if (currentView === 'faults') await loadFaults();
    else if (currentView === 'requests') await renderRequests();
  } catch (error) {
    notice(error instanceof Error ? error.message : String(error));
  }
}

// ---------------------------------------------------------------- event stream

/** Least time between two reads of the request log prompted by the event stream, ms. */
const REQUESTS_REFRESH_MS = 1000;
let requestsPending = false;
let requestsStale = false;

/**
 * Re-reads the newest page: at most once per {@link REQUESTS_REFRESH_MS}, once more after if requests came
 * meanwhile.
 */
function refreshRequests(): void {
  if (requestsPending) {
    requestsStale = true;
    return;
  }
  requestsPending = true;
  void renderRequests()
    .catch(() => undefined)
    .finally(() =>
      setTimeout(() => {
        requestsPending = false;
        if (requestsStale) {
          requestsStale = false;
          refreshRequests();
        }
      }, REQUESTS_REFRESH_MS),
    );
}

function onEvent(name: string, data: string): void {
  let payload: Json;
  try {
    payload = JSON.parse(data) as Json;
  } catch {
    return;
  }
  switch (name) {
    case 'ready':
      void loadAll().catch((error: unknown) =>
        notice(error instanceof Error ? error.message : String(error)),
      );
      return;
    case 'task':
      applyLive(() => onTask(payload as unknown as TaskEntry));
      return;
    case 'webhook':
      applyLive(() => onDelivery(payload as unknown as Delivery));
      return;
    case 'wallet':
      if (currentView === 'wallet') void renderWallet().catch(() => undefined);
      return;
    case 'faults':
      if (currentView === 'faults') renderFaults(payload.active as ActiveFault[]);
      return;
    case 'requests': {
      // Only while the newest page is shown: rows of older pages the reader opened stay as they are.
      const shown = byId<HTMLTableElement>('requests-table').tBodies[0]?.rows.length ?? 0;
      if (currentView === 'requests' && shown <= REQUESTS_PAGE) refreshRequests();
      return;
    }
    case 'reset':
      void loadAll().catch(() => undefined);
      return;
  }
}

// ---------------------------------------------------------------- start

function start(): void {
  readTokenFromFragment();
  const statusFilter = byId<HTMLSelectElement>('task-status');
  for (const status of TASK_STATUSES) statusFilter.append(el('option', { value: status }, status));
  const target = byId<HTMLSelectElement>('advance-target');
  byId('task-search').addEventListener('input', applyFilter);
  const zone = byId<HTMLInputElement>('kuwait-time');
  zone.checked = kuwaitTime;
  zone.addEventListener('change', () => {
    setKuwaitTime(zone.checked);
    renderTasks();
    void showView();
  });
  byId('fault-kinds').addEventListener('input', markFaultEdited);
  byId<HTMLFormElement>('webhook-url-form').addEventListener('submit', (event) => {
    event.preventDefault();
    void changeWebhookUrl(byId<HTMLInputElement>('webhook-url-input').value.trim());
  });
  byId('webhook-url-off').addEventListener('click', () => void changeWebhookUrl(null));
  statusFilter.addEventListener('change', applyFilter);
  byId('advance-one').addEventListener('click', () => void moveTask());
  byId('advance-to').addEventListener('click', () => void moveTask(target.value));
  byId('task-cancel').addEventListener('click', () => void moveTask('cancelled'));
  byId('task-fail').addEventListener('click', () => void moveTask('failed'));
  byId('requests-older').addEventListener(
    'click',
    () =>
      void showOlderRequests().catch((error: unknown) =>
        notice(error instanceof Error ? error.message : String(error)),
      ),
  );
  byId('faults-clear').addEventListener(
    'click',
    () => void control('faults', { method: 'DELETE' }).catch(() => undefined),
  );
  byId<HTMLFormElement>('token-form').addEventListener('submit', (event) => {
    event.preventDefault();
    const input = byId<HTMLInputElement>('token-input');
    useToken(input.value.trim());
    input.value = '';
  });
  window.addEventListener('hashchange', () => {
    void showView().then(() => {
      if (currentView === 'task') byId('task-heading').focus();
    });
  });
  void readEvents(onEvent);
}

start();
