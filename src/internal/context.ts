/** What resource classes share with their client: the transport, validation mode, logger, redactor. */
import type { ReconciliationOptions, ValidationMode } from '../core/options.js';
import type { DeliveryStore, StoreScope } from '../core/store.js';
import type { DriftReporter } from './drift-report.js';
import type { Transport } from './http.js';
import type { LevelLogger } from './logger.js';
import type { Redactor } from './redact.js';

export interface ResourceContext {
  /** The client's `Transport`: every request passes `sendOperation` (`send-operation.ts`) to it. */
  readonly transport: Transport;
  /** Base URL and seller id, for state shared by the seller's clients in this process. Never shown. */
  readonly sellerScope: string;
  readonly sellerId: string;
  /** Base URL and seller id, as store keys take them (`storeKey`). */
  readonly storeScope: StoreScope;
  /** Shared state (leases, remembered orders), every call bounded by the store timeout. */
  readonly store: DeliveryStore;
  readonly sharedStore: boolean;
  /** The client's `lookupFirst`; `undefined`: by the store (`tasks.create`'s option). */
  readonly lookupFirst: boolean | undefined;
  readonly attemptTimeoutMs: number;
  /** The client's `totalTimeout`, ms (a call's own wins); `undefined` for none. */
  readonly totalTimeoutMs: number | undefined;
  readonly orderTtlMs: number;
  readonly validation: ValidationMode;
  /** Reports drift read tolerantly: `onDrift`, one warning per (operation, path), a span event. */
  readonly reportDrift: DriftReporter;
  readonly logger: LevelLogger;
  readonly redactor: Redactor;
  readonly maxRetries: number;
  readonly reconciliation: ReconciliationOptions;
  readonly listingDelayMs: number;
}
