/** The dashboard's Wallet, Faults and Requests views (docs/sandbox.md, "Dashboard"). */
import {
  type ActiveFault,
  byId,
  control,
  el,
  emptyRow,
  type FaultKind,
  type Json,
  type JsonSchema,
  kwdOfFils,
  localTime,
  MAX_REQUEST_ROWS,
  notice,
  REQUESTS_PAGE,
  summaryList,
  tasks,
  text,
} from './dom.js';

// ---------------------------------------------------------------- wallet

export async function renderWallet(): Promise<void> {
  const view = await control<{ wallet: Json; topUps: Json[] }>('wallet');
  const { wallet } = view;
  summaryList(byId('wallet-summary'), [
    ['Account', text(wallet.type)],
    ['Balance', kwdOfFils(Number(wallet.balanceFils))],
    ['Fees charged', `${kwdOfFils(Number(wallet.feesChargedFils))} (${text(wallet.feesCharged)} tasks)`],
    ...(wallet.type === 'invoice'
      ? ([
          ['Invoiced', `${kwdOfFils(Number(wallet.invoicedFils))} (${text(wallet.invoiced)} tasks)`],
        ] as Array<[string, string]>)
      : []),
  ]);
  byId<HTMLTableElement>('topups-table').tBodies[0]?.replaceChildren(
    ...(view.topUps.length === 0
      ? [
          el(
            'tr',
            {},
            el('td', { colspan: '4' }, 'No top-up yet: POST tasks/wallet-topup issues a payment link.'),
          ),
        ]
      : view.topUps.toReversed().map((topUp) => {
          const url = new URL(text(topUp.paymentUrl));
          return el(
            'tr',
            {},
            el('td', { 'data-label': 'Amount', class: 'number' }, kwdOfFils(Number(topUp.amountFils))),
            el('td', { 'data-label': 'Issued' }, localTime(topUp.issuedAt)),
            el(
              'td',
              { 'data-label': 'State' },
              topUp.paidAt === undefined ? 'unpaid' : `paid ${localTime(topUp.paidAt)}`,
            ),
            el('td', { 'data-label': 'Payment page' }, el('a', { href: url.pathname }, 'Open payment page')),
          );
        })),
  );
  renderFees();
}

export function renderFees(): void {
  if (tasks.size === 0) {
    byId<HTMLTableElement>('fees-table').tBodies[0]?.replaceChildren(
      emptyRow(3, 'None yet: no task was created.'),
    );
    return;
  }
  byId<HTMLTableElement>('fees-table').tBodies[0]?.replaceChildren(
    ...[...tasks.values()]
      .slice(0, 200)
      .map((entry) =>
        el(
          'tr',
          {},
          el('td', { 'data-label': 'Order number' }, text(entry.task.orderNumber)),
          el('td', { 'data-label': 'Status' }, text(entry.task.status)),
          el('td', { 'data-label': 'Fee', class: 'number' }, kwdOfFils(entry.feeFils)),
        ),
      ),
  );
}

// ---------------------------------------------------------------- faults

export let faultKinds: FaultKind[] = [];
export let operations: string[] = [];

/** Ids of the fault form inputs the user changed: kept across a re-render, until that kind is switched on. */
const edited = new Set<string>();

/** Marks the input of an `input` event in the fault cards as changed by the user. */
export function markFaultEdited(event: Event): void {
  const id = (event.target as HTMLElement | null)?.id;
  if (id) edited.add(id);
}

/** A value of an active rule as an input shows it: text as it is, anything else as JSON. */
const shown = (value: unknown): string => (typeof value === 'string' ? value : JSON.stringify(value));

/**
 * An input for one field of a fault rule, from its JSON Schema, showing `current` (the active rule's value)
 * when the kind is on, else the form's default.
 */
export function fieldInput(
  kind: string,
  name: string,
  schema: JsonSchema,
  required: boolean,
  current?: unknown,
): HTMLElement {
  const id = `fault-${kind}-${name}`;
  const numeric = schema.type === 'number' || schema.type === 'integer';
  const orInfinity = schema.anyOf?.some((part) => part.const === 'Infinity') === true;
  let input: HTMLInputElement | HTMLTextAreaElement | HTMLSelectElement;
  if (schema.enum) {
    input = el(
      'select',
      { id },
      ...schema.enum.map((value) => el('option', { value: text(value) }, text(value))),
    );
  } else if (numeric) {
    input = el('input', { id, type: 'number', inputmode: 'numeric' });
    if (schema.minimum !== undefined) input.setAttribute('min', String(schema.minimum));
    if (schema.maximum !== undefined) input.setAttribute('max', String(schema.maximum));
    if (name === 'status') input.value = '503';
  } else if (orInfinity) {
    input = el('input', { id, type: 'text', inputmode: 'numeric', placeholder: 'a number or Infinity' });
    if (name === 'ms') input.value = '2000';
  } else if (schema.type === 'string') {
    input = el('input', { id, type: 'text' });
  } else {
    input = el('textarea', { id, rows: '2', placeholder: 'JSON (optional)' });
  }
  input.dataset.field = name;
  input.dataset.kind = numeric
    ? 'number'
    : orInfinity
      ? 'number-or-infinity'
      : schema.type === 'string' || schema.enum
        ? 'string'
        : 'json';
  if (required) input.required = true;
  if (current !== undefined)
    input.value = input.dataset.kind === 'json' ? JSON.stringify(current) : shown(current);
  return el(
    'div',
    { class: 'field' },
    el('label', { for: id }, `${name}${required ? '' : ' (optional)'}`),
    input,
  );
}

export function faultCard(kind: FaultKind, active: ActiveFault[]): HTMLElement {
  const properties = kind.schema.properties ?? {};
  const required = new Set(kind.schema.required ?? []);
  const fields = Object.entries(properties).filter(
    ([name]) => !['kind', 'operation', 'times'].includes(name),
  );
  const on = active.filter((fault) => fault.rule.kind === kind.kind);
  // The card shows the newest active rule of its kind, so what is on is what is read.
  const current = on.at(-1)?.rule;
  const operationId = `fault-${kind.kind}-operation`;
  const timesId = `fault-${kind.kind}-times`;
  const form = el(
    'form',
    { class: 'card', 'aria-labelledby': `fault-${kind.kind}-title`, 'data-fault-kind': kind.kind },
    el(
      'h3',
      { id: `fault-${kind.kind}-title` },
      kind.kind,
      ' ',
      el('span', { class: on.length > 0 ? 'badge on' : 'badge off' }, on.length > 0 ? 'on' : 'off'),
    ),
    ...fields.map(([name, schema]) =>
      fieldInput(kind.kind, name, schema, required.has(name), current?.[name]),
    ),
    el(
      'div',
      { class: 'field' },
      el('label', { for: operationId }, 'operation'),
      el(
        'select',
        { id: operationId },
        el('option', { value: '' }, 'every operation'),
        ...operations.map((operation) =>
          el(
            'option',
            {
              value: operation,
              ...([current?.operation].flat().includes(operation) ? { selected: '' } : {}),
            },
            operation,
          ),
        ),
      ),
    ),
    el(
      'div',
      { class: 'field' },
      el('label', { for: timesId }, 'requests'),
      el('input', {
        id: timesId,
        type: 'text',
        value: shown(current?.times ?? 'Infinity'),
        inputmode: 'numeric',
      }),
    ),
    el('button', { type: 'submit', class: 'primary' }, `Switch ${kind.kind} on`),
  );
  if (on.length > 0) {
    const off = el('button', { type: 'button', class: 'danger' }, `Switch ${kind.kind} off`);
    off.addEventListener('click', () => void switchOff(on));
    form.append(off);
  }
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    void switchOn(kind.kind, form);
  });
  return form;
}

export async function switchOn(kind: string, form: HTMLFormElement): Promise<void> {
  const rule: Json = { kind };
  try {
    for (const input of form.querySelectorAll<HTMLInputElement | HTMLTextAreaElement | HTMLSelectElement>(
      '[data-field]',
    )) {
      const name = input.dataset.field ?? '';
      const value = input.value.trim();
      if (value === '') continue;
      if (input.dataset.kind === 'number') rule[name] = Number(value);
      else if (input.dataset.kind === 'number-or-infinity')
        rule[name] = value === 'Infinity' ? value : Number(value);
      else if (input.dataset.kind === 'json') rule[name] = JSON.parse(value);
      else rule[name] = value;
    }
  } catch {
    notice('A JSON field of the fault is not valid JSON.');
    return;
  }
  const operation = form.querySelector<HTMLSelectElement>(`#fault-${kind}-operation`)?.value ?? '';
  if (operation !== '') rule.operation = operation;
  const times = form.querySelector<HTMLInputElement>(`#fault-${kind}-times`)?.value.trim() ?? 'Infinity';
  rule.times = times === 'Infinity' || times === '' ? 'Infinity' : Number(times);
  try {
    await control('faults', { method: 'POST', body: rule });
    for (const id of [...edited]) if (id.startsWith(`fault-${kind}-`)) edited.delete(id);
    notice('');
  } catch (error) {
    notice(error instanceof Error ? error.message : String(error));
  }
}

export async function switchOff(rules: ActiveFault[]): Promise<void> {
  // Highest index first: removing one renumbers the rules after it.
  for (const fault of rules.toSorted((a, b) => b.index - a.index)) {
    await control(`faults/${fault.index}`, { method: 'DELETE' }).catch(() => undefined);
  }
}

export function renderFaults(active: ActiveFault[]): void {
  const focused = document.activeElement?.id;
  // Keep what the user has typed or chosen in the cards across the re-render.
  const typed = new Map<string, string>();
  for (const input of byId('fault-kinds').querySelectorAll<
    HTMLInputElement | HTMLSelectElement | HTMLTextAreaElement
  >('input, select, textarea')) {
    typed.set(input.id, input.value);
  }
  byId('fault-kinds').replaceChildren(...faultKinds.map((kind) => faultCard(kind, active)));
  for (const [id, value] of typed) {
    const input = document.getElementById(id) as HTMLInputElement | null;
    if (input && edited.has(id)) input.value = value;
  }
  byId('faults-active').replaceChildren(
    ...(active.length === 0
      ? [el('li', {}, 'No fault is on: every request is answered normally.')]
      : active.map((fault) => {
          const { kind, operation, times: _times, ...rest } = fault.rule;
          const remove = el(
            'button',
            { type: 'button', 'aria-label': `Remove rule ${fault.index + 1} (${text(kind)})` },
            'Remove',
          );
          remove.addEventListener('click', () => void switchOff([fault]));
          const extra = Object.keys(rest).length > 0 ? ` ${JSON.stringify(rest)}` : '';
          return el(
            'li',
            {},
            el('strong', {}, text(kind)),
            `${extra} · ${operation === undefined ? 'every operation' : text(operation)} · ${fault.remaining === 'Infinity' ? 'until switched off' : `${fault.remaining} more`} `,
            remove,
          );
        })),
  );
  if (focused) document.getElementById(focused)?.focus();
}

export async function loadFaults(): Promise<void> {
  const view = await control<{ kinds: FaultKind[]; operations: string[]; active: ActiveFault[] }>('faults');
  faultKinds = view.kinds;
  operations = view.operations;
  renderFaults(view.active);
}

// ---------------------------------------------------------------- requests

export interface RequestPage {
  requests: Json[];
  total: number;
  before?: number;
}

/** The cursor of the next older page of the Requests view, when there is one. */
export let olderRequests: number | undefined;

export function requestRow(request: Json): HTMLTableRowElement {
  return el(
    'tr',
    {},
    el(
      'td',
      { 'data-label': 'Operation' },
      el(
        'div',
        {},
        text(request.operation),
        request.fault === undefined ? undefined : el('small', {}, ` (fault ${text(request.fault)})`),
      ),
    ),
    el('td', { 'data-label': 'Request' }, el('code', {}, `${text(request.method)} ${text(request.path)}`)),
    el('td', { 'data-label': 'Answer' }, text(request.status)),
    el(
      'td',
      { 'data-label': 'Details' },
      el(
        'details',
        {},
        el('summary', {}, 'Headers and body'),
        el(
          'pre',
          { class: 'json' },
          JSON.stringify({ headers: request.headers, query: request.query, body: request.body }, null, 2),
        ),
      ),
    ),
  );
}

export function showOlderButton(page: RequestPage, rows: number): void {
  olderRequests = rows < MAX_REQUEST_ROWS ? page.before : undefined;
  byId('requests-older').hidden = olderRequests === undefined;
  byId('requests-count').textContent = `${rows} of ${page.total} kept`;
}

/** Reads the newest page of the request log (one page, never the whole log) and shows it newest first. */
export async function renderRequests(): Promise<void> {
  const page = await control<RequestPage>(`requests?limit=${REQUESTS_PAGE}`);
  const body = byId<HTMLTableElement>('requests-table').tBodies[0];
  const rows = page.requests.toReversed().map(requestRow);
  body?.replaceChildren(
    ...(rows.length === 0 ? [emptyRow(4, 'None yet: requests to the service show here.')] : rows),
  );
  showOlderButton(page, page.requests.length);
}

/** Appends the next older page below the rows shown. */
export async function showOlderRequests(): Promise<void> {
  if (olderRequests === undefined) return;
  const page = await control<RequestPage>(`requests?limit=${REQUESTS_PAGE}&before=${olderRequests}`);
  const body = byId<HTMLTableElement>('requests-table').tBodies[0];
  body?.append(...page.requests.toReversed().map(requestRow));
  showOlderButton(page, body?.rows.length ?? 0);
}
