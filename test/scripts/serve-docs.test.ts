/**
 * `npm run docs:serve` ends its children with itself: stopped with SIGTERM or killed with SIGKILL,
 * nothing it started keeps serving (scripts/serve-docs.ts).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { CAN_SEE_PROCESSES, commandLineOf, descendantsOf, survivorsAfter } from '../support/processes.js';
import { ROOT } from '../support/root.js';

const site = mkdtempSync(join(tmpdir(), 'docs-serve-'));
writeFileSync(join(site, 'index.html'), '<!doctype html><title>docs</title>');
const started: ChildProcess[] = [];

afterAll(() => {
  for (const child of started) {
    try {
      if (child.pid !== undefined) process.kill(-child.pid, 'SIGKILL');
    } catch {
      // Ended.
    }
  }
  rmSync(site, { recursive: true, force: true });
});

/** Starts `npm run docs:serve` in its own process group; resolves with it and the URL it prints. */
async function serveDocs(): Promise<{ npm: ChildProcess; url: string }> {
  const npm = spawn('npm', ['run', '--silent', 'docs:serve', '--', '--port', '0', '--root', site], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  started.push(npm);
  const url = await new Promise<string>((resolve, reject) => {
    let text = '';
    npm.stdout?.setEncoding('utf8');
    npm.stdout?.on('data', (chunk: string) => {
      text += chunk;
      const found = /docs site: (http:\/\/\S+)/.exec(text)?.[1];
      if (found) resolve(found);
    });
    npm.once('exit', () => reject(new Error(`docs:serve exited before serving: ${text}`)));
  });
  return { npm, url };
}

function refused(url: string): Promise<boolean> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve) => {
    const socket = connect(Number(port), hostname);
    socket.once('connect', () => {
      socket.destroy();
      resolve(false);
    });
    socket.once('error', () => resolve(true));
  });
}

describe.skipIf(!CAN_SEE_PROCESSES)('npm run docs:serve', () => {
  for (const signal of ['SIGTERM', 'SIGKILL'] as const) {
    it(`ends every process it started when npm gets ${signal}`, async () => {
      const { npm, url } = await serveDocs();
      // An idle keep-alive connection, as a browser leaves open.
      const { hostname, port } = new URL(url);
      const browser = connect(Number(port), hostname);
      browser.on('error', () => {});
      browser.write(`GET / HTTP/1.1\r\nHost: ${hostname}:${port}\r\nConnection: keep-alive\r\n\r\n`);
      await new Promise((resolve) => browser.once('data', resolve));
      const processes = [npm.pid ?? -1, ...descendantsOf(npm.pid ?? -1)];
      const exited = new Promise((resolve) => npm.once('exit', resolve));
      npm.kill(signal);
      await exited;
      const survivors = await survivorsAfter(processes, 5000);
      browser.destroy();
      expect(survivors.map((pid) => `${pid} ${commandLineOf(pid)}`)).toEqual([]);
      expect(await refused(url)).toBe(true);
    });
  }
});
