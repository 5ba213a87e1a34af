/**
 * Redaction by what a value is (src/internal/redact.ts): credential headers and fields are replaced whatever
 * they hold; a secret shorter than MIN_SUBSTRING_SECRET_CHARS is never searched for in other text, so ids,
 * keys and JSON stay intact for any seller id; a long secret is still removed wherever it appears.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  isCredentialField,
  MIN_SUBSTRING_SECRET_CHARS,
  REDACTED,
  Redactor,
} from '../../src/internal/redact.js';

/** A task as the service answers one, with ids, amounts and text where short seller ids occur by chance. */
const task = {
  id: '6925a0c06d6f636b00000001',
  sellerId: 'e',
  orderNumber: 'ORD-1001',
  customerName: 'Fatma Al-Sabah',
  status: 'pending',
  totalAmount: '12.500',
  deliveryId: 'DLV-000001',
  estimateId: 'est_1a-e-test',
  statusHistory: [
    { id: '6925a0c06d6f636b00000002', status: 'pending', timestamp: '2026-11-29T08:00:00.000Z' },
  ],
  travelDetail: { totalDistance: 11.1, duration: 21 },
};

const LONG_KEY = 'sk_live_9f8e7d6c5b4a3928';

describe('a short seller id', () => {
  for (const sellerId of ['e', '1', 'a', 'test', '-', '0', 'ta', 'pending', 'seller']) {
    it(`${JSON.stringify(sellerId)} leaves ids, keys and JSON intact, and is removed where it is a credential`, () => {
      const redactor = new Redactor([LONG_KEY, sellerId]);
      const shown = redactor.value({ ...task, sellerId }) as Record<string, unknown>;
      expect(shown).toEqual({ ...task, sellerId: REDACTED });
      const text = JSON.stringify({ ...task, sellerId: undefined });
      expect(redactor.text(text)).toBe(text);
      expect(JSON.parse(redactor.text(text))).toEqual(JSON.parse(text));
      const headers = redactor.value({
        authorization: `apikey ${LONG_KEY}`,
        'x-seller-id': sellerId,
        accept: '*/*',
      });
      expect(headers).toEqual({
        authorization: `apikey ${REDACTED}`,
        'x-seller-id': REDACTED,
        accept: '*/*',
      });
      // The long key is still removed wherever it appears.
      expect(redactor.text(`key ${LONG_KEY} in ${encodeURIComponent(LONG_KEY)}`)).toBe(
        `key ${REDACTED} in ${REDACTED}`,
      );
      expect(redactor.excerpt(`a task ${task.id} for ${sellerId}`, 100)).toBe(
        `a task ${task.id} for ${sellerId}`,
      );
    });
  }

  it(`is never searched for below ${MIN_SUBSTRING_SECRET_CHARS} characters, whatever the text`, () => {
    fc.assert(
      fc.property(
        fc.string({ minLength: 1, maxLength: MIN_SUBSTRING_SECRET_CHARS - 1 }),
        fc.json({ maxDepth: 3 }),
        (secret, json) => {
          const redactor = new Redactor([secret]);
          expect(redactor.text(json)).toBe(json);
          const value = JSON.parse(json) as unknown;
          expect(redactor.value(value)).toEqual(value);
        },
      ),
      { numRuns: 300 },
    );
  });
});

describe('credential fields', () => {
  it('are named in any spelling and replaced whatever they hold, nested or in arrays', () => {
    for (const name of [
      'sellerId',
      'seller_id',
      'x-seller-id',
      'X-Seller-Id',
      'apiKey',
      'api_key',
      'x-api-key',
    ]) {
      expect(isCredentialField(name), name).toBe(true);
    }
    for (const name of ['seller', 'sellerName', 'key', 'token', 'id', 'orderNumber', 'sellerDetail']) {
      expect(isCredentialField(name), name).toBe(false);
    }
    const redactor = new Redactor([]);
    expect(
      redactor.value({
        body: { sellerId: 'anyone', apiKey: 12345, sellerName: 'Shop', list: [{ api_key: 'k' }] },
      }),
    ).toEqual({
      body: { sellerId: REDACTED, apiKey: REDACTED, sellerName: 'Shop', list: [{ api_key: REDACTED }] },
    });
    expect(redactor.value({ authorization: ['Bearer abc', 'Basic xyz'] })).toEqual({
      authorization: [`Bearer ${REDACTED}`, `Basic ${REDACTED}`],
    });
  });
});
