/** `client.branches`: pickup branches; spec § "GET /tasks/branches". */

import { call, type ResourceContext } from '../internal/context.js';
import type { RequestOptions } from '../options.js';
import { type Branch, BranchListResponse, toBranches } from '../schemas/branch.js';

/** Pickup branches of the seller. */
export class Branches {
  readonly #context: ResourceContext;

  /** @internal Built by `DeliveryClient`. */
  constructor(context: ResourceContext) {
    this.#context = context;
  }

  /**
   * Lists the branches whose `name` is valid as `selectedBranch` on create (`GET tasks/branches`).
   * Any of the response shapes in the README is normalised to `Branch[]`. Retried when safe.
   * @throws {APIError} by status, {@link APIConnectionError}, {@link ResponseValidationError}.
   */
  async list(options?: RequestOptions): Promise<Branch[]> {
    const body = await call(
      this.#context,
      BranchListResponse,
      { operation: 'branches.list', method: 'GET', path: 'tasks/branches', retry: 'idempotent' },
      options,
    );
    return toBranches(body);
  }
}
