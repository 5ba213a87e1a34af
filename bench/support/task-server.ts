/**
 * A loopback node:http server (real sockets) answering every request with one task, as the service
 * would: the server the per-call benchmarks time the client against.
 * @module
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { sampleTask } from './sample-task.js';

/** A running task server. */
export interface TaskServer {
  /** `http://127.0.0.1:<port>/`. */
  readonly url: string;
  /** Ends every open connection and stops listening. */
  close(): Promise<void>;
}

/** Starts a server on 127.0.0.1 (a free port) answering `sampleTask(1)` with its `content-length`. */
export async function serveTask(): Promise<TaskServer> {
  const body = JSON.stringify(sampleTask(1));
  const server = createServer((_request, response) => {
    response.writeHead(200, {
      'content-type': 'application/json',
      'content-length': Buffer.byteLength(body),
    });
    response.end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`,
    close: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
