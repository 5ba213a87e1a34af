/**
 * `client.wallet`: prepaid balance and top-up links; OpenAPI `retrieveWalletBalance`, "POST
 * /tasks/wallet-topup".
 */
import type { APIPromise } from '../core/api-promise.js';
import type { RequestOptions } from '../core/options.js';
import type { ResourceContext } from '../internal/context.js';
import type { WalletBalance, WalletTopUp, WalletTopUpParams } from '../schemas/wallet.js';
import { contextOf, type ResourceHandle } from './handle.js';
import { request } from './request.js';

/** The seller's prepaid wallet. */
export class Wallet {
  readonly #context: ResourceContext;

  /** @internal Built by `DeliveryClient`. */
  constructor(handle: ResourceHandle) {
    this.#context = contextOf(handle);
  }

  /**
   * The balance, `{ walletAmount }` in KWD (`GET tasks/wallet-balance`). Retried when safe.
   * @throws {APIError} by status; {@link APIConnectionError}; {@link ResponseValidationError}.
   */
  retrieveBalance(options?: RequestOptions): APIPromise<WalletBalance> {
    return request(this.#context, 'wallet.retrieveBalance', {}, options);
  }

  /**
   * A payment link (24 h) to top up the wallet by `amount` KWD, ≥ 5, 3 decimals at most
   * (`POST tasks/wallet-topup`). Never retried: each call issues a new link.
   * @throws {RequestValidationError} (nothing sent); {@link APIError} (4xx on an invoice account);
   * {@link APIConnectionError}; {@link ResponseValidationError}.
   */
  topUp(params: WalletTopUpParams, options?: RequestOptions): APIPromise<WalletTopUp> {
    return request(this.#context, 'wallet.topUp', params, options);
  }
}
