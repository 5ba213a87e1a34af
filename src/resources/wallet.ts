/** `client.wallet`: prepaid balance and top-up links; OpenAPI `retrieveWalletBalance`, "POST /tasks/wallet-topup". */
import type { APIPromise } from '../core/api-promise.js';
import { OPERATIONS, requestOf } from '../core/operations.js';
import type { RequestOptions } from '../core/options.js';
import { call, type ResourceContext } from '../internal/context.js';
import { parseParams } from '../internal/validate.js';
import { type WalletBalance, type WalletTopUp, WalletTopUpParams } from '../schemas/wallet.js';
import { contextOf, type ResourceHandle } from './handle.js';

/** The seller's prepaid wallet. */
export class Wallet {
  readonly #context: ResourceContext;

  /** @internal Built by `DeliveryClient`. */
  constructor(handle: ResourceHandle) {
    this.#context = contextOf(handle);
  }

  /**
   * Reads the balance, `{ walletAmount }` in KWD (`GET tasks/wallet-balance`). Invoice accounts have
   * no balance check. Retried when safe.
   * @throws {APIError} by status, {@link APIConnectionError}, {@link ResponseValidationError}.
   */
  retrieveBalance(options?: RequestOptions): APIPromise<WalletBalance> {
    return call(
      this.#context,
      OPERATIONS['wallet.retrieveBalance'].response,
      requestOf('wallet.retrieveBalance'),
      options,
    );
  }

  /**
   * Requests a payment link to top up the wallet (`POST tasks/wallet-topup`). `amount` is KWD, at
   * least 5, at most 3 decimals. The link expires after 24 hours; the wallet is credited when the
   * payment completes. Never retried automatically (each call issues a new link).
   * @throws {RequestValidationError} for a bad amount (nothing is sent); {@link APIError} by status
   * (an invoice account gets a 4xx); {@link APIConnectionError}; {@link ResponseValidationError}.
   */
  topUp(params: WalletTopUpParams, options?: RequestOptions): APIPromise<WalletTopUp> {
    return call(
      this.#context,
      OPERATIONS['wallet.topUp'].response,
      () => ({
        ...requestOf('wallet.topUp'),
        body: parseParams(WalletTopUpParams, params, 'wallet.topUp'),
      }),
      options,
    );
  }
}
