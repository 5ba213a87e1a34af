/**
 * A store in use for a while, for the create tests: its `epoch` key written as if its records began
 * `ageMs` ago (10 minutes by default), past `FRESH_STORE_MS` (src/resources/task-creation/lease-terms.ts),
 * so a create trusts its records and sends its POST without looking its order up first.
 */
import { type DeliveryStore, type StoreScope, storeKey } from '../../src/core/store.js';

/** `store` with its epoch set `ageMs` back for `scope` (the client's base URL and seller id). */
export async function aged<Store extends DeliveryStore>(
  store: Store,
  scope: StoreScope,
  ageMs = 600_000,
): Promise<Store> {
  await store.setIfAbsent(storeKey(scope, 'epoch'), String(Date.now() - ageMs), 86_400_000);
  return store;
}
