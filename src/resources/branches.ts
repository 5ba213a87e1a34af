/** `client.branches`: pickup branches; OpenAPI `listBranches`. */

import { APIPromise } from '../core/api-promise.js';
import { requestOf } from '../core/operations.js';
import type { RequestOptions } from '../core/options.js';
import type { ResourceContext } from '../internal/context.js';
import type { HttpResponse } from '../internal/http.js';
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
   * Lists the branches whose `name` is valid as `selectedBranch` on create (`GET tasks/branches`).
   * The spec does not show the shape: an array of branches (objects with a `name`, or strings), or an
   * object holding one under any property, is read as `Branch[]` (docs/spec-choices.md); any other JSON
   * body resolves `[]`. What was left out or coerced is reported as drift (`onDrift`, one warning per
   * path), in every validation mode: a 2xx JSON answer never throws. Retried when safe.
   * @throws {APIError} by status, {@link APIConnectionError}, {@link ResponseValidationError} for a 2xx
   * body that is not JSON.
   */
  list(options?: RequestOptions): APIPromise<Branch[]> {
    const context = this.#context;
    const read = (response: HttpResponse, span: TraceSpan | undefined): Branch[] => {
      const { branches, drifts } = readBranches(response.body);
      if (drifts.length > 0) context.reportDrift('branches.list', drifts, span);
      return branches;
    };
    const answered = context.transport.send({ ...requestOf('branches.list'), read }, options).then((response) => ({
      data: response.body as Branch[],
      head: { status: response.status, headers: response.headers, body: response.text },
    }));
    return new APIPromise(answered);
  }
}
