/** The dashboard's shared pieces: types of the control answers, elements, control requests and the token. */

export type Json = Record<string, unknown>;

export interface TaskEntry {
  task: Json;
  feeFils: number;
}

export interface Delivery {
  seq: number;
  taskId: string;
  status: string;
  url: string;
  body: Json;
  responseStatus?: number;
  error?: string;
  durationMs: number;
  resentFrom?: number;
}

export interface FaultKind {
  kind: string;
  schema: { properties?: Record<string, JsonSchema>; required?: string[] };
}

export interface JsonSchema {
  type?: string;
  const?: unknown;
  enum?: unknown[];
  anyOf?: JsonSchema[];
  minimum?: number;
  maximum?: number;
}

export interface ActiveFault {
  index: number;
  rule: Json;
  remaining: number | 'Infinity';
}

export const TOKEN_KEY = 'delivery-task-sandbox-token';
/** Most tasks the page holds; the oldest row goes when a new task comes beyond it. */
export const MAX_TASKS = 1000;
/** Most bytes of the event stream held while waiting for the end of an event. */
export const MAX_EVENT_BYTES = 4 * 1024 * 1024;
/** Requests read per page of the Requests view (`GET /_sandbox/requests?limit=…`). */
export const REQUESTS_PAGE = 100;
/** Most request rows the Requests view holds (older pages are read on demand, up to this). */
export const MAX_REQUEST_ROWS = 1000;

export const byId = <T extends HTMLElement>(id: string): T => {
  const element = document.getElementById(id);
  if (!element) throw new Error(`the page has no #${id}`);
  return element as T;
};

/** An element with text children (never HTML) and attributes. */
export function el<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attributes: Record<string, string> = {},
  ...children: Array<Node | string | undefined>
): HTMLElementTagNameMap[K] {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) element.setAttribute(name, value);
  for (const child of children) if (child !== undefined) element.append(child);
  return element;
}

export const text = (value: unknown): string =>
  value === undefined || value === null ? '' : typeof value === 'string' ? value : JSON.stringify(value);

export const kwdOfFils = (fils: number): string => `${(fils / 1000).toFixed(3)} KWD`;

/** Where the page keeps the choice of time zone (this browser's local storage). */
export const TIME_KEY = 'delivery-task-sandbox-time';

/** Kuwait's offset from UTC, ms: UTC+3 all year, no daylight saving. */
const KUWAIT_OFFSET_MS = 3 * 3_600_000;

function storedKuwaitTime(): boolean {
  try {
    return localStorage.getItem(TIME_KEY) === 'kuwait';
  } catch {
    return false;
  }
}

/** Times are shown in Kuwait time (UTC+3) rather than the browser's zone. */
export let kuwaitTime = storedKuwaitTime();

/** Shows times in Kuwait time (`true`) or the browser's zone, and remembers the choice. */
export function setKuwaitTime(on: boolean): void {
  kuwaitTime = on;
  try {
    localStorage.setItem(TIME_KEY, on ? 'kuwait' : 'local');
  } catch {
    // Kept for this page only.
  }
}

/** A time of the sandbox as chosen: the browser's zone, or `2026-11-24 18:25:48 Kuwait` (UTC+3). */
export function localTime(iso: unknown): string {
  if (typeof iso !== 'string') return '';
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return iso;
  if (!kuwaitTime) return date.toLocaleString();
  return `${new Date(date.getTime() + KUWAIT_OFFSET_MS).toISOString().slice(0, 19).replace('T', ' ')} Kuwait`;
}

/** The row an empty table shows: a sentence across every column. */
export function emptyRow(columns: number, message: string): HTMLTableRowElement {
  return el('tr', { class: 'empty' }, el('td', { colspan: String(columns) }, message));
}

// ---------------------------------------------------------------- control requests

export let token = sessionStorage.getItem(TOKEN_KEY) ?? undefined;
/** Waiters for the token form, released when it is submitted. */
export const tokenWaiters: Array<() => void> = [];

/** Keeps the token from the form for this tab and releases the requests waiting for it. */
export function useToken(value: string): void {
  token = value;
  sessionStorage.setItem(TOKEN_KEY, token);
  byId('token-form').hidden = true;
  for (const wake of tokenWaiters.splice(0)) wake();
}

export function readTokenFromFragment(): void {
  const match = /(?:^#|&)token=([^&]+)/.exec(location.hash);
  if (!match?.[1]) return;
  token = decodeURIComponent(match[1]);
  sessionStorage.setItem(TOKEN_KEY, token);
  history.replaceState(null, '', `${location.pathname}${location.search}#tasks`);
}

export function authHeaders(): Record<string, string> {
  return token === undefined ? {} : { authorization: `Bearer ${token}` };
}

export function askForToken(): Promise<void> {
  const form = byId<HTMLFormElement>('token-form');
  form.hidden = false;
  byId<HTMLInputElement>('token-input').focus();
  return new Promise((resolve) => {
    tokenWaiters.push(resolve);
  });
}

class ControlError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

/** A control request: JSON in and out; asks for the token on a 401 and tries again. */
export async function control<T>(path: string, init: { method?: string; body?: unknown } = {}): Promise<T> {
  for (;;) {
    const headers: Record<string, string> = { ...authHeaders() };
    if (init.body !== undefined) headers['content-type'] = 'application/json';
    const response = await fetch(`/_sandbox/${path}`, {
      method: init.method ?? 'GET',
      headers,
      cache: 'no-store',
      ...(init.body === undefined ? {} : { body: JSON.stringify(init.body) }),
    });
    if (response.status === 401) {
      await askForToken();
      continue;
    }
    const body = (await response.json().catch(() => ({}))) as Json;
    if (!response.ok)
      throw new ControlError(response.status, text(body.message) || `HTTP ${response.status}`);
    return body as T;
  }
}

export function notice(message: string): void {
  const element = byId('notice');
  element.textContent = message;
  element.hidden = message === '';
}

/** The tasks the page holds, by id (at most {@link MAX_TASKS}). */
export const tasks = new Map<string, TaskEntry>();

export function summaryList(target: HTMLElement, pairs: Array<[string, string]>): void {
  target.replaceChildren(...pairs.flatMap(([term, value]) => [el('dt', {}, term), el('dd', {}, value)]));
}
