/**
 * `delivery-task` cuts service text to a cell (`MAX_CELL_CHARS`) only after redacting it: a secret
 * across the cut leaves no part of itself on stdout, at every cut position, for the API key and the
 * seller id.
 */

import { DeliveryClient } from 'delivery-task-sdk';
import {
  createMockDeliveryService,
  type MockHttpServer,
  startMockHttpServer,
} from 'delivery-task-sdk/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { partsIn } from '../../../../test/support/secret-parts.js';
import { MAX_CELL_CHARS } from '../../src/cli/format.js';
import { cliEnv, runInProcess } from '../support/cli.js';

const API_KEY = 'Kq7Zp3Wm-cli-cut-9Xv2';
const SELLER_ID = 'Tb8Rj4Ln-7Hs2wQ';
const mock = createMockDeliveryService({
  apiKey: API_KEY,
  sellerId: SELLER_ID,
  baseUrl: 'https://delivery.test/rest',
});
let server: MockHttpServer;

beforeAll(async () => {
  server = await startMockHttpServer(mock);
});
afterAll(async () => {
  await server.close();
});

describe('a secret across the cut of a cell', () => {
  for (const [name, secret] of [
    ['API key', API_KEY],
    ['seller id', SELLER_ID],
  ] as const) {
    it(`leaves no part of the ${name} in tasks get, at every cut position`, async () => {
      const client = new DeliveryClient({
        apiKey: API_KEY,
        sellerId: SELLER_ID,
        baseUrl: server.url,
        logLevel: 'off',
      });
      const env = cliEnv(mock, server.url);
      for (let split = 1; split < secret.length; split++) {
        const customerName = `${'.'.repeat(MAX_CELL_CHARS - 1 - split)}${secret}${'.'.repeat(20)}`;
        const task = await client.tasks.create({
          orderNumber: `CUT-${name}-${split}`,
          customerName,
          deliveryLocation: { latitude: 29.3339, longitude: 48.0761 },
        });
        const result = await runInProcess(['tasks', 'get', task.id], { env });
        expect(result.code, result.stderr).toBe(0);
        expect(partsIn(result.stdout, secret), `split after ${split}`).toEqual([]);
      }
    });
  }
});
