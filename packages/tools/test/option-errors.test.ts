/**
 * Every options error of both packages has the one form, `Invalid <path>: expected <what>, got <value>`,
 * its `option` the path, and never shows a secret.
 */
import { ConfigurationError, DeliveryClient } from 'delivery-task-sdk';
import {
  checkMockOptions,
  createMockDeliveryService,
  type MockDeliveryServiceOptions,
} from 'delivery-task-sdk/testing';
import { createWebhookHandler, type WebhookHandlerOptions } from 'delivery-task-sdk/webhooks';
import { type Sandbox, type SandboxOptions, startSandbox } from 'delivery-task-tools/sandbox';
import { describe, expect, it } from 'vitest';
import { type McpPolicy, resolvePolicy } from '../src/mcp/policy.js';

const API_KEY = 'sk_live_option_errors_secret';
const SELLER_ID = 'seller-option-errors-secret';
const valid = {
  apiKey: API_KEY,
  sellerId: SELLER_ID,
  baseUrl: 'https://delivery.test',
  logLevel: 'off' as const,
};
const client = new DeliveryClient(valid);

/** [entry, path, build]: `build` throws the error of the option at `path`. */
const TABLE: readonly [string, string, () => unknown][] = [
  ['DeliveryClient', 'options', () => new DeliveryClient(null as never)],
  ['DeliveryClient', 'timeout', () => new DeliveryClient({ ...valid, timeout: 0 })],
  ['DeliveryClient', 'maxRetries', () => new DeliveryClient({ ...valid, maxRetries: 2.5 })],
  ['DeliveryClient', 'validation', () => new DeliveryClient({ ...valid, validation: 'loose' as never })],
  ['DeliveryClient', 'logLevel', () => new DeliveryClient({ ...valid, logLevel: 'loud' as never })],
  ['DeliveryClient', 'apiKey', () => new DeliveryClient({ ...valid, apiKey: `${API_KEY}\u0001x` })],
  ['DeliveryClient', 'sellerId', () => new DeliveryClient({ ...valid, sellerId: `${SELLER_ID}\u0000` })],
  ['DeliveryClient', 'baseUrl', () => new DeliveryClient({ ...valid, baseUrl: 'http://delivery.test' })],
  [
    'DeliveryClient',
    'reconciliation.maxPages',
    () => new DeliveryClient({ ...valid, reconciliation: { maxPages: 0 } }),
  ],
  ['DeliveryClient', 'maxRetry', () => new DeliveryClient({ ...valid, maxRetry: 1 } as never)],
  ['createWebhookHandler', 'onEvent', () => createWebhookHandler({} as WebhookHandlerOptions)],
  ['createWebhookHandler', 'maxQueue', () => createWebhookHandler({ onEvent() {}, maxQueue: 0 })],
  [
    'createWebhookHandler',
    'dedupe.windowMs',
    () => createWebhookHandler({ onEvent() {}, dedupe: { windowMs: -1 } }),
  ],
  ['createWebhookHandler', 'confirm', () => createWebhookHandler({ onEvent() {}, confirm: 'yes' as never })],
  ['createWebhookHandler', 'client', () => createWebhookHandler({ onEvent() {}, confirm: true })],
  [
    'createWebhookHandler',
    'maxQueueBytes',
    () => createWebhookHandler({ onEvent() {}, maxBodyBytes: 2048, maxQueueBytes: 1024 }),
  ],
  ['createWebhookHandler', 'store', () => createWebhookHandler({ onEvent() {}, store: {} as never })],
  [
    'startSync',
    'startSync.intervalMs',
    () => createWebhookHandler({ onEvent() {}, client }).startSync({ intervalMs: 0 }),
  ],
  ['resolvePolicy', 'policy.allow', () => resolvePolicy(client, { allow: ['create'] })],
  ['resolvePolicy', 'policy.maxFeeKwd', () => resolvePolicy(client, { maxFeeKwd: -1 })],
  ['resolvePolicy', 'policy.storeTimeoutMs', () => resolvePolicy(client, { storeTimeoutMs: 0 })],
  ['resolvePolicy', 'policy.now', () => resolvePolicy(client, { now: 5 } as unknown as McpPolicy)],
  ['resolvePolicy', 'policy', () => resolvePolicy(client, 'all' as McpPolicy)],
  ['createMockDeliveryService', 'options', () => createMockDeliveryService(5 as MockDeliveryServiceOptions)],
  [
    'createMockDeliveryService',
    'account.type',
    () => createMockDeliveryService({ account: { type: 'prepaid' } as never }),
  ],
  [
    'createMockDeliveryService',
    'branches.2.name',
    () => createMockDeliveryService({ branches: ['A', 'B', { name: '' }] }),
  ],
  ['createMockDeliveryService', 'taskLimit', () => createMockDeliveryService({ taskLimit: 0 })],
  [
    'createMockDeliveryService',
    'taskLimit',
    () => createMockDeliveryService({ taskLimit: 1, tasks: [{}, {}] }),
  ],
  ['createMockDeliveryService', 'webhookUrl', () => createMockDeliveryService({ webhookUrl: '/hooks' })],
  ['createMockDeliveryService', 'apiKey', () => createMockDeliveryService({ apiKey: [API_KEY] as never })],
  ['createMockDeliveryService', 'sellerId', () => createMockDeliveryService({ sellerId: ' ' })],
  [
    'createMockDeliveryService',
    'tasks.0.status',
    () => createMockDeliveryService({ tasks: [{ status: 'lost' as never }] }),
  ],
  [
    'createMockDeliveryService',
    'tasks.0.sellerId',
    () => createMockDeliveryService({ tasks: [{ sellerId: SELLER_ID }] }),
  ],
  ['createMockDeliveryService', 'recordLimt', () => createMockDeliveryService({ recordLimt: 5 } as never)],
  ['checkMockOptions', 'origin.latitude', () => checkMockOptions({ origin: { latitude: 99, longitude: 0 } })],
  ['startSandbox', 'options', () => startSandbox([] as SandboxOptions)],
  ['startSandbox', 'port', () => startSandbox({ port: -1 })],
  ['startSandbox', 'host', () => startSandbox({ host: '' })],
  ['startSandbox', 'host', () => startSandbox({ host: '192.0.2.1' })],
  ['startSandbox', 'controlToken', () => startSandbox({ controlToken: `${API_KEY} x` })],
  ['startSandbox', 'allowedHosts', () => startSandbox({ allowedHosts: 'sandbox' as never })],
  ['startSandbox', 'allowedHosts.1', () => startSandbox({ allowedHosts: ['sandbox', 'a:80'] })],
  ['startSandbox', 'maxEventClients', () => startSandbox({ maxEventClients: 0 })],
  ['startSandbox', 'maxEventBufferedBytes', () => startSandbox({ maxEventBufferedBytes: 1.5 })],
  ['startSandbox', 'autoAdvanceMs', () => startSandbox({ autoAdvanceMs: 9 })],
  ['startSandbox', 'maxBodyBytes', () => startSandbox({ maxBodyBytes: 0 })],
  ['startSandbox', 'recordLimit', () => startSandbox({ recordLimit: 0 })],
  ['startSandbox', 'account.balance', () => startSandbox({ account: { type: 'wallet', balance: -2 } })],
  ['startSandbox', 'baseUrl', () => startSandbox({ baseUrl: 'http://x.test' } as SandboxOptions)],
  ['startSandbox', 'controlTokn', () => startSandbox({ controlTokn: 16 } as SandboxOptions)],
];

/** What `build` throws (or its promise rejects with); a sandbox it started after all is closed. */
async function thrownBy(build: () => unknown): Promise<unknown> {
  try {
    const built = await build();
    await (built as Partial<Sandbox> | undefined)?.close?.();
  } catch (error) {
    return error;
  }
  return undefined;
}

describe('options errors', () => {
  it.each(TABLE)('%s: %s has the one form', async (_entry, path, build) => {
    const error = await thrownBy(build);
    expect(error).toBeInstanceOf(ConfigurationError);
    const { option, message } = error as ConfigurationError;
    expect(option).toBe(path);
    const escaped = path.replace(/[.[\]]/g, '\\$&');
    expect(message).toMatch(new RegExp(`^Invalid ${escaped}: expected .+, got .+$`));
    expect(message).not.toContain(API_KEY);
    expect(message).not.toContain(SELLER_ID);
  });
});
