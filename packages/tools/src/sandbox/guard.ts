/** Who may call the sandbox's control endpoints (docs/sandbox.md, "Exposure"). */
import { createHash, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { isIP } from 'node:net';

/** Shortest control token accepted, characters. */
export const MIN_CONTROL_TOKEN_LENGTH = 16;
/** Longest control token accepted, characters. */
export const MAX_CONTROL_TOKEN_LENGTH = 1024;

export interface GuardRefusal {
  readonly status: 401 | 403;
  readonly code: 'FOREIGN_ORIGIN' | 'FOREIGN_HOST' | 'CONTROL_TOKEN_REQUIRED';
  readonly message: string;
}

/** True for a host name or address that only this machine reaches: `localhost`, 127.0.0.0/8, `::1`. */
export function isLoopbackHost(host: string): boolean {
  const bare = host.replace(/^\[|\]$/g, '').toLowerCase();
  if (bare === 'localhost' || bare.endsWith('.localhost')) return true;
  if (isIP(bare) === 4) return bare.startsWith('127.');
  if (bare === '::1' || bare === '0:0:0:0:0:0:0:1') return true;
  return bare.startsWith('::ffff:127.');
}

/**
 * Whether `token` can be a control token: a string of {@link MIN_CONTROL_TOKEN_LENGTH} to {@link
 * MAX_CONTROL_TOKEN_LENGTH} visible ASCII characters, no spaces (it travels in a header).
 */
export function isControlToken(token: unknown): token is string {
  return (
    typeof token === 'string' &&
    token.length >= MIN_CONTROL_TOKEN_LENGTH &&
    token.length <= MAX_CONTROL_TOKEN_LENGTH &&
    /^[\x21-\x7e]+$/.test(token)
  );
}

const digest = (text: string): Buffer => createHash('sha256').update(text, 'utf8').digest();

export class SandboxGuard {
  readonly #origins: ReadonlySet<string>;
  readonly #hosts: ReadonlySet<string>;
  readonly #tokenDigest: Buffer | undefined;
  /** `Host` values answered besides the sandbox's own (`name:port`), or `'any'`. */
  readonly #allowedHosts: ReadonlySet<string> | 'any';

  /** `token` and `allowedHosts` already read by the sandbox's options schema (`option-schema.ts`). */
  constructor(host: string, port: number, token: string | undefined, allowedHosts: readonly string[] = []) {
    const names = new Set(['localhost', '127.0.0.1', '[::1]', host.includes(':') ? `[${host}]` : host]);
    this.#hosts = new Set([...names].map((name) => `${name}:${port}`.toLowerCase()));
    this.#origins = new Set([...this.#hosts].map((name) => `http://${name}`));
    this.#tokenDigest = token === undefined ? undefined : digest(token);
    this.#allowedHosts = allowedHosts.includes('*')
      ? 'any'
      : new Set(
          allowedHosts.map((name) => `${name.includes(':') ? `[${name}]` : name}:${port}`.toLowerCase()),
        );
  }

  /**
   * Refuses a `Host` that is neither the sandbox's nor allowed (none: let through), on every route and
   * whether or not a control token is set: the token adds its check to the control routes, it never opens
   * the sandbox to another name (a DNS-rebinding page sends its own name and no token).
   */
  checkHost(request: IncomingMessage): GuardRefusal | undefined {
    const host = header(request, 'host')?.toLowerCase();
    if (host === undefined || this.#hosts.has(host) || this.#allowed(host)) return undefined;
    return {
      status: 403,
      code: 'FOREIGN_HOST',
      message:
        'The sandbox answers requests addressed to its own host name only (localhost, 127.0.0.1); start it with --allow-host <name> to answer another',
    };
  }

  get tokenRequired(): boolean {
    return this.#tokenDigest !== undefined;
  }

  #allowed(host: string | undefined): boolean {
    return host !== undefined && (this.#allowedHosts === 'any' || this.#allowedHosts.has(host));
  }

  /** Refuses a request sent by a page of another origin (any path: control, events, payment). */
  checkOrigin(request: IncomingMessage): GuardRefusal | undefined {
    const origin = header(request, 'origin');
    const site = header(request, 'sec-fetch-site');
    const host = header(request, 'host')?.toLowerCase();
    const own =
      origin === undefined ||
      this.#origins.has(origin.toLowerCase()) ||
      (host !== undefined && this.#allowed(host) && origin.toLowerCase() === `http://${host}`);
    if (!own || (site !== undefined && site !== 'same-origin' && site !== 'none')) {
      return {
        status: 403,
        code: 'FOREIGN_ORIGIN',
        message: 'The sandbox refuses control requests from a page of another origin',
      };
    }
    if (host !== undefined && !this.#hosts.has(host) && !this.#allowed(host)) {
      return {
        status: 403,
        code: 'FOREIGN_HOST',
        message:
          'The sandbox answers control requests addressed to its own host name only (localhost, 127.0.0.1)',
      };
    }
    return undefined;
  }

  /** Refuses a control request without the token (when one is configured). */
  checkToken(request: IncomingMessage): GuardRefusal | undefined {
    if (this.#tokenDigest === undefined) return undefined;
    const presented = /^Bearer +(\S+)\s*$/i.exec(header(request, 'authorization') ?? '')?.[1];
    if (presented !== undefined && timingSafeEqual(digest(presented), this.#tokenDigest)) return undefined;
    return {
      status: 401,
      code: 'CONTROL_TOKEN_REQUIRED',
      message: 'This sandbox was started with --control-token: send it as "Authorization: Bearer <token>"',
    };
  }
}

function header(request: IncomingMessage, name: string): string | undefined {
  const value = request.headers[name];
  return Array.isArray(value) ? value[0] : value;
}
