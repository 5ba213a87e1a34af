/**
 * Real HTTP servers on 127.0.0.1 (port 0) with the webhook handler mounted the way docs/webhooks.md shows,
 * one per framework.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createAdaptorServer } from '@hono/node-server';
import express from 'express';
import Fastify from 'fastify';
import { Hono } from 'hono';
import type { WebhookHandler } from '../../src/webhooks/index.js';

/** A running receiver: the webhook URL and how to stop it. */
export interface Receiver {
  readonly url: string;
  /** Connections the server holds open now. */
  openSockets(): Promise<number>;
  close(): Promise<void>;
}

/** How the handler is mounted. */
export type Mounting =
  | 'node:http'
  | 'express'
  | 'express with express.json()'
  | 'fastify with the parsed body'
  | 'fastify with the raw stream'
  | 'hono';

export const MOUNTINGS: readonly Mounting[] = [
  'node:http',
  'express',
  'express with express.json()',
  'fastify with the parsed body',
  'fastify with the raw stream',
  'hono',
];

const PATH = '/webhooks/delivery';

function openSockets(server: Server): Promise<number> {
  return new Promise((resolve, reject) =>
    server.getConnections((error, count) => (error ? reject(error) : resolve(count))),
  );
}

async function listen(server: Server): Promise<Receiver> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}${PATH}`,
    openSockets: () => openSockets(server),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/**
 * Starts a server with `handler` mounted at `/webhooks/delivery` for every method. `maxBodyBytes` is
 * also given to the framework's own body parser, which then answers 413 itself.
 */
export async function startReceiver(mounting: Mounting, handler: WebhookHandler, maxBodyBytes = 1024 * 1024) {
  switch (mounting) {
    case 'node:http':
      return listen(createServer((req, res) => handler.node(req, res)));
    case 'express': {
      const app = express();
      app.all(PATH, (req, res) => handler.node(req, res));
      return listen(createServer(app));
    }
    case 'express with express.json()': {
      const app = express();
      app.all(PATH, express.json({ limit: maxBodyBytes }), (req, res) => handler.node(req, res));
      return listen(createServer(app));
    }
    case 'fastify with the parsed body': {
      const app = Fastify({ bodyLimit: maxBodyBytes });
      app.all(PATH, async (request, reply) => {
        reply.hijack();
        await handler.node(request.raw, reply.raw, { body: request.body });
      });
      await app.listen({ port: 0, host: '127.0.0.1' });
      const { port } = app.server.address() as AddressInfo;
      return {
        url: `http://127.0.0.1:${port}${PATH}`,
        openSockets: () => openSockets(app.server),
        close: () => app.close(),
      };
    }
    case 'fastify with the raw stream': {
      const app = Fastify();
      app.all(PATH, {
        // Before Fastify reads the body: the handler reads the stream itself.
        onRequest: async (request, reply) => {
          reply.hijack();
          await handler.node(request.raw, reply.raw);
        },
        handler: async () => {},
      });
      await app.listen({ port: 0, host: '127.0.0.1' });
      const { port } = app.server.address() as AddressInfo;
      return {
        url: `http://127.0.0.1:${port}${PATH}`,
        openSockets: () => openSockets(app.server),
        close: () => app.close(),
      };
    }
    case 'hono': {
      const app = new Hono();
      app.all(PATH, (c) => handler.fetch(c.req.raw));
      return listen(createAdaptorServer({ fetch: app.fetch }) as Server);
    }
  }
}
