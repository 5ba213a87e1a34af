/**
 * Tool results stay whole for any seller id (src/internal/redact.ts): a short one (`e`, `1`, `a`, `test`, `-`)
 * is removed where it is a credential (the task's `sellerId`), never as a part of ids, keys or text; a long API
 * key is still removed wherever it appears. A booking goes through with the ids the tools handed out.
 */
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { DeliveryClient } from 'delivery-task-sdk';
import { createMockDeliveryService } from 'delivery-task-sdk/testing';
import { afterAll, describe, expect, it } from 'vitest';
import { createMcpServer } from '../../src/mcp.js';
import { bookTwoStep, call, connectInMemory, dataOf, quote, textOf } from './support.js';

const API_KEY = 'sk_live_9f8e7d6c5b4a3928';
const open: Client[] = [];
afterAll(async () => {
  for (const client of open.splice(0)) await client.close();
});

describe('MCP tool results with a short seller id', () => {
  for (const sellerId of ['e', '1', 'a', 'test', '-', '0', 'ta']) {
    it(`${JSON.stringify(sellerId)}: estimates, books, reads and finds with intact ids and keys`, async () => {
      const mock = createMockDeliveryService({
        baseUrl: 'https://delivery.test/rest',
        apiKey: API_KEY,
        sellerId,
      });
      mock.listen();
      try {
        const sdk = new DeliveryClient({ apiKey: API_KEY, sellerId, baseUrl: mock.baseUrl, logLevel: 'off' });
        const client = await connectInMemory(createMcpServer(sdk, { allow: ['read', 'create'] }));
        open.push(client);
        const estimateId = await quote(client);
        expect(estimateId).toMatch(/^[A-Za-z0-9_-]{6,}$/);
        const booked = await bookTwoStep(client, 'ORD-SHORT-1');
        const task = dataOf(booked).task as Record<string, unknown>;
        expect(task.id, textOf(booked)).toBe(mock.tasks[0]?.id);
        expect(task.orderNumber).toBe('ORD-SHORT-1');
        const read = dataOf(await call(client, 'get_task', { id: task.id })).task as Record<string, unknown>;
        expect(read.id).toBe(task.id);
        expect(Object.keys(read)).toEqual(expect.arrayContaining(['id', 'status', 'orderNumber']));
        const found = await call(client, 'find_tasks', { search: 'ORD-SHORT-1' });
        expect(textOf(found)).toContain(String(task.id));
        const balance = dataOf(await call(client, 'get_wallet_balance'));
        expect(Object.keys(balance).length).toBeGreaterThan(0);
        for (const result of [booked, found]) {
          const text = textOf(result);
          expect(() => JSON.parse(text.slice(text.indexOf('{')))).not.toThrow();
          expect(text).not.toContain(API_KEY);
          expect(text).not.toContain('[redacted][redacted]');
        }
      } finally {
        mock.close();
      }
    });
  }
});
