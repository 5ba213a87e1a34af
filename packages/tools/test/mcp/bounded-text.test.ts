/**
 * Text the MCP server bounds (a task field, a branch, an error line) is redacted before it is cut: a
 * secret across a cut leaves no part of itself behind, at every cut position, for the API key and the
 * seller id. Confirmation summaries neutralise every text as the question does.
 */
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { DeliveryClient } from 'delivery-task-sdk';
import { afterEach, describe, expect, it } from 'vitest';
import { useMockService } from '../../../../test/support/mock-service.js';
import { partsIn } from '../../../../test/support/secret-parts.js';
import { MAX_ERROR_CHARS } from '../../src/mcp/results.js';
import { MAX_FIELD_CHARS } from '../../src/mcp/task-view.js';
import { createMcpServer } from '../../src/mcp.js';
import { booking, call, connectInMemory, dataOf, quote, SALMIYA, textOf } from './support.js';

const API_KEY = 'Kq7Zp3Wm-hostile-9Xv2';
const SELLER_ID = 'Tb8Rj4Ln-7Hs2wQ';
const open: Client[] = [];
afterEach(async () => {
  for (const client of open.splice(0)) await client.close();
});

/** An MCP client over a DeliveryClient whose service answers every request with `answer()`. */
async function hostile(answer: (url: URL) => { status: number; body: unknown }): Promise<Client> {
  const client = new DeliveryClient({
    apiKey: API_KEY,
    sellerId: SELLER_ID,
    baseUrl: 'https://hostile.test',
    logLevel: 'off',
    maxRetries: 0,
    fetch: async (input) => {
      const url = new URL(input instanceof Request ? input.url : String(input));
      const { status, body } = answer(url);
      return new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });
    },
  });
  const mcp = await connectInMemory(createMcpServer(client));
  open.push(mcp);
  return mcp;
}

/** `secret` placed so that a cut keeping `keep` characters splits it after `split` of its characters. */
function straddling(secret: string, keep: number, split: number): string {
  return `${'.'.repeat(keep - split)}${secret}${'.'.repeat(50)}`;
}

describe('a secret across the cut of a tool result', () => {
  for (const [name, secret] of [
    ['API key', API_KEY],
    ['seller id', SELLER_ID],
  ] as const) {
    it(`leaves no part of the ${name} in a task field, at every cut position`, async () => {
      let notes = '';
      const client = await hostile(() => ({
        status: 200,
        body: {
          _id: 'T1',
          orderNumber: 'ORD-1',
          status: 'pending',
          specialNotes: notes,
          customerName: notes,
        },
      }));
      for (let split = 1; split < secret.length; split++) {
        notes = straddling(secret, MAX_FIELD_CHARS - 1, split);
        const text = JSON.stringify(await call(client, 'get_task', { id: 'T1' }));
        expect(partsIn(text, secret), `split after ${split}`).toEqual([]);
      }
    });

    it(`leaves no part of the ${name} in an error line, at every cut position`, async () => {
      let message = '';
      const client = await hostile(() => ({ status: 422, body: { message } }));
      for (let split = 1; split < secret.length; split++) {
        // The service message is cut at 500 in the error, the line at MAX_ERROR_CHARS after its prefix.
        for (const keep of [500, MAX_ERROR_CHARS - 60, MAX_ERROR_CHARS - 100, MAX_ERROR_CHARS - 140]) {
          message = straddling(secret, keep, split);
          const text = JSON.stringify(await call(client, 'get_task', { id: 'T1' }));
          expect(partsIn(text, secret), `split after ${split}, keep ${keep}`).toEqual([]);
        }
      }
    });

    it(`leaves no part of the ${name} in a branch`, async () => {
      let name = '';
      const client = await hostile(() => ({ status: 200, body: [{ name, address: name }] }));
      for (let split = 1; split < secret.length; split++) {
        name = straddling(secret, MAX_FIELD_CHARS - 1, split);
        const text = JSON.stringify(await call(client, 'list_branches'));
        expect(partsIn(text, secret), `split after ${split}`).toEqual([]);
      }
    });
  }
});

describe('the confirmation summary', () => {
  const fixture = useMockService();

  it('neutralises direction, control and zero-width characters in every text, as the question does', async () => {
    const mcp = await connectInMemory(createMcpServer(fixture.client(), { allow: ['read', 'create'] }));
    open.push(mcp);
    const orderNumber = 'ORD-\u202e1\u0007\u200b2\u2066';
    const args = {
      ...booking(orderNumber, await quote(mcp)),
      deliveryLocation: { ...SALMIYA, fullAddress: ['Block\u200b 10\u202e', 'Salmiya\u0007'] },
    };
    const first = dataOf(await call(mcp, 'create_delivery', args));
    const wouldBook = first.wouldBook as Record<string, string>;
    for (const text of Object.values(wouldBook)) {
      // biome-ignore lint/suspicious/noControlCharactersInRegex: looking for control characters is the point.
      expect(text).not.toMatch(/[\u0000-\u001f\u007f-\u009f\u200b-\u200f\u202a-\u202e\u2060-\u2069\ufeff]/);
    }
    expect(wouldBook.orderNumber).toBe('ORD-\ufffd1\ufffd\ufffd2\ufffd');
    expect(
      textOf(await call(mcp, 'create_delivery', { ...args, confirmationToken: first.confirmationToken })),
    ).toContain('"status":"booked"');
  });
});
