/** `client.branches`: pickup branches; OpenAPI `listBranches`. */

import { APIPromise } from '../core/api-promise.js';
import { requestOf } from '../core/operations.js';
import type { RequestOptions } from '../core/options.js';
import type { ResourceContext } from '../internal/context.js';
import type { HttpResponse } from '../internal/http-request.js';
import type { TraceSpan } from '../internal/tracing.js';
import { type Branch, readBranches } from '../schemas/branch.js';
import { contextOf, type ResourceHandle } from './handle.js';

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
    const context = this.#context;
    const read = (response: HttpResponse, span: TraceSpan | undefined): Branch[] => {
      const { branches, drifts } = readBranches(response.body);
      if (drifts.length > 0) context.reportDrift('branches.list', drifts, span);
      return branches;
    };
    const answered = context.transport
      .send({ ...requestOf('branches.list'), read }, options)
      .then((response) => ({
        data: response.body as Branch[],
        head: { status: response.status, headers: response.headers, body: response.text },
      }));
    return new APIPromise(answered);
  }
}
