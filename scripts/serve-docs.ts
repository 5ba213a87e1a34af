/**
 * Serves the built docs site (`docs/site/`, from `npm run docs`) on 127.0.0.1: `npm run docs:serve`
 * (`-- --port N`, default 8080; `0` picks a free port). Static files only, GET and HEAD, never a path
 * outside the site. Ctrl+C stops it.
 *
 * It ends with whatever started it: on SIGINT, SIGTERM or SIGHUP it ends open connections and exits
 * (an idle keep-alive connection of a browser does not hold it), and it exits as soon as one of the
 * processes above it (tsx, the shell, npm) has ended, so that stopping `npm run docs:serve` by any
 * signal leaves nothing serving the port (checked every {@link ANCESTOR_CHECK_MS} ms, Linux only).
 */
import { createReadStream, existsSync, readFileSync, statSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { extname, join, normalize, resolve, sep } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.json': 'application/json',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.md': 'text/plain; charset=utf-8',
  '.ts': 'text/plain; charset=utf-8',
  '.woff2': 'font/woff2',
};

/** How often the processes above this one are checked, ms. */
export const ANCESTOR_CHECK_MS = 500;

/** The processes above this one up to (not including) pid 1, nearest first; just the parent where `/proc` is missing. */
function ancestors(): number[] {
  const chain: number[] = [];
  for (let pid = process.ppid; pid > 1 && chain.length < 64; ) {
    chain.push(pid);
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      pid = Number(stat.slice(stat.lastIndexOf(') ') + 2).split(' ')[1]);
    } catch {
      break;
    }
  }
  return chain;
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** A static server over `root`, listening on 127.0.0.1:`port`; resolves once it listens. */
export async function serveDocs(root: string, port: number): Promise<{ server: Server; url: string }> {
  const base = resolve(root);
  const server = createServer((request, response) => {
    if (request.method !== 'GET' && request.method !== 'HEAD') {
      response.writeHead(405, { allow: 'GET, HEAD' }).end();
      return;
    }
    let path: string;
    try {
      path = decodeURIComponent(new URL(request.url ?? '/', 'http://localhost').pathname);
    } catch {
      response.writeHead(400).end();
      return;
    }
    let file = normalize(join(base, path));
    if (file !== base && !file.startsWith(base + sep)) {
      response.writeHead(404).end();
      return;
    }
    if (existsSync(file) && statSync(file).isDirectory()) file = join(file, 'index.html');
    if (!existsSync(file) || !statSync(file).isFile()) {
      response.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' }).end('not found\n');
      return;
    }
    response.writeHead(200, {
      'content-type': TYPES[extname(file)] ?? 'application/octet-stream',
      'content-length': statSync(file).size,
      'cache-control': 'no-cache',
    });
    if (request.method === 'HEAD') response.end();
    else createReadStream(file).pipe(response);
  });
  await new Promise<void>((done, fail) => {
    server.once('error', fail);
    server.listen(port, '127.0.0.1', done);
  });
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/` };
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const { values } = parseArgs({
    options: { port: { type: 'string', default: '8080' }, root: { type: 'string', default: 'docs/site' } },
  });
  const port = Number(values.port);
  if (!Number.isInteger(port) || port < 0 || port > 65_535) {
    console.error(`docs:serve: --port ${values.port}: expected 0…65535`);
    process.exit(2);
  }
  if (!existsSync(join(values.root, 'index.html'))) {
    console.error(`docs:serve: no ${values.root}/index.html; build the site with npm run docs`);
    process.exit(1);
  }
  const { server, url } = await serveDocs(values.root, port);
  console.log(`docs site: ${url} · Ctrl+C stops it`);
  const stop = () => {
    server.close(() => process.exit(0));
    server.closeAllConnections();
  };
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.once(signal, stop);
  const above = ancestors();
  if (above.length > 0) {
    setInterval(() => {
      if (process.ppid !== above[0] || !above.every(alive)) stop();
    }, ANCESTOR_CHECK_MS).unref();
  }
}
