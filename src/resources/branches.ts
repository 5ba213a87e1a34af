/** `client.branches`: pickup branches; OpenAPI `listBranches`. */

import type { APIPromise } from '../core/api-promise.js';
import type { RequestOptions } from '../core/options.js';
import type { ResourceContext } from '../internal/context.js';
import type { Branch } from '../schemas/branch.js';
import { contextOf, type ResourceHandle } from './handle.js';
import { request } from './request.js';

/** Pickup branches of the seller. */
export class Branches {
  readonly #context: ResourceContext;

  /** @internal Built by `DeliveryClient`. */
  constructor(handle: ResourceHandle) {
    this.#context = contextOf(handle);
  }

  /**
   * The branches whose `name` is valid as `selectedBranch` (`GET tasks/branches`), read tolerantly
   * (docs/spec-choices.md; what was left out is reported as drift). Retried when safe.
   * @throws {APIError} by status; {@link APIConnectionError}; {@link ResponseValidationError} for a body not
   * JSON.
   */
  list(options?: RequestOptions): APIPromise<Branch[]> {
    return request(this.#context, 'branches.list', {}, options);
  }
}
