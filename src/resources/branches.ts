/** `client.branches`: pickup branches; OpenAPI `listBranches`. */

import { APIPromise } from '../core/api-promise.js';
import { OPERATIONS, requestOf } from '../core/operations.js';
import type { RequestOptions } from '../core/options.js';
import { answer, type ResourceContext } from '../internal/context.js';
import { type Branch, toBranches } from '../schemas/branch.js';
import { contextOf, type ResourceHandle } from './handle.js';

/** Pickup branches of the seller. */
export class Branches {
  readonly #context: ResourceContext;

  /** @internal Built by `DeliveryClient`. */
  constructor(handle: ResourceHandle) {
    this.#context = contextOf(handle);
  }

  /**
   * Lists the branches whose `name` is valid as `selectedBranch` on create (`GET tasks/branches`).
   * Any of the response shapes in docs/spec-choices.md is normalised to `Branch[]`. Retried when safe.
   * @throws {APIError} by status, {@link APIConnectionError}, {@link ResponseValidationError}.
   */
  list(options?: RequestOptions): APIPromise<Branch[]> {
    const answered = answer(this.#context, OPERATIONS['branches.list'].response, requestOf('branches.list'), options);
    return new APIPromise(answered.then(({ data, head }) => ({ data: toBranches(data), head })));
  }
}
