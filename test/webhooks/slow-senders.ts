/**
 * Senders that never finish their body, over raw TCP: headers, then a byte now and then, or fewer
 * bytes than `Content-Length` declares. Each reports what the receiver answered and whether it closed
 * the connection.
 */
import { connect } from 'node:net';

/** What the receiver did to one slow sender. */
export interface SlowSenderOutcome {
  /** Status code of the answer, `undefined` when none came before giving up. */
  readonly status: number | undefined;
  /** The answer's `connection` header, lower-cased. */
  readonly connection: string | undefined;
  /** From the end of the headers to the answer, ms; `undefined` when none came. */
  readonly answeredAfterMs: number | undefined;
  /** The receiver closed the connection (rather than the sender giving up). */
  readonly closedByReceiver: boolean;
}

/** How a slow sender behaves. */
export interface SlowSenderPlan {
  /** The `Content-Length` declared. */
  readonly contentLength: number;
  /** Bytes sent right after the headers. */
  readonly firstBytes: string;
  /** Then one more byte every `dribbleEveryMs` (none when absent). */
  readonly dribbleEveryMs?: number;
  /** The sender stops waiting (and closes) after this long, ms. */
  readonly giveUpAfterMs: number;
}

/** Opens a connection to `url` and POSTs a webhook following `plan`. Never rejects. */
export function sendSlowly(url: string, plan: SlowSenderPlan): Promise<SlowSenderOutcome> {
  const { hostname, port, pathname } = new URL(url);
  return new Promise((resolve) => {
    const socket = connect(Number(port), hostname);
    let received = '';
    let status: number | undefined;
    let connection: string | undefined;
    let answeredAfterMs: number | undefined;
    let sentAt = 0;
    let settled = false;
    let dribbler: ReturnType<typeof setInterval> | undefined;
    const finish = (closedByReceiver: boolean): void => {
      if (settled) return;
      settled = true;
      clearInterval(dribbler);
      clearTimeout(giveUp);
      socket.destroy();
      resolve({ status, connection, answeredAfterMs, closedByReceiver });
    };
    const giveUp = setTimeout(() => finish(false), plan.giveUpAfterMs);
    socket.on('error', () => finish(true));
    socket.on('close', () => finish(true));
    socket.on('end', () => finish(true));
    socket.on('data', (chunk: Buffer) => {
      received += chunk.toString('latin1');
      const headerEnd = received.indexOf('\r\n\r\n');
      if (status !== undefined || headerEnd < 0) return;
      answeredAfterMs = performance.now() - sentAt;
      const [statusLine = '', ...lines] = received.slice(0, headerEnd).split('\r\n');
      status = Number(statusLine.split(' ')[1]);
      const header = lines.find((line) => line.toLowerCase().startsWith('connection:'));
      connection = header?.slice('connection:'.length).trim().toLowerCase();
    });
    socket.on('connect', () => {
      socket.write(
        `POST ${pathname} HTTP/1.1\r\nHost: ${hostname}:${port}\r\nContent-Type: application/json\r\n` +
          `Content-Length: ${plan.contentLength}\r\n\r\n${plan.firstBytes}`,
      );
      sentAt = performance.now();
      if (plan.dribbleEveryMs !== undefined) {
        dribbler = setInterval(() => {
          if (!socket.destroyed) socket.write(' ');
        }, plan.dribbleEveryMs);
      }
    });
  });
}
