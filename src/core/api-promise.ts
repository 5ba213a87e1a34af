/**
 * {@link APIPromise}, what every request method returns (docs/configuration.md "Response metadata and
 * tracing"). @module
 */

/** The status, headers and body text of the response a value was parsed from. */
export interface ResponseHead {
  readonly status: number;
  readonly headers: Headers;
  /** The decoded body text, when known. */
  readonly body?: string;
}

export interface Answered<T> {
  readonly data: T;
  readonly head: ResponseHead | undefined;
}

/** What {@link APIPromise.withResponse} resolves to. */
export interface WithResponse<T> {
  data: T;
  /** The response `data` came from (status and headers only); for `tasks.create`, the POST or the lookup. */
  response: Response;
  /** The `x-request-id` header of that response, or `null`. */
  requestId: string | null;
}

const UNKNOWN_HEAD: ResponseHead = Object.freeze({ status: 200, headers: new Headers() });

/** @internal `data` with a `Response` re-created from `head` (status 200, no headers when unknown). */
export function withResponseOf<T>(data: T, head: ResponseHead | undefined): WithResponse<T> {
  const { status, headers } = head ?? UNKNOWN_HEAD;
  return {
    data,
    response: new Response(null, { status, headers }),
    requestId: headers.get('x-request-id'),
  };
}

const WIRE_HEADERS = ['content-encoding', 'content-length', 'transfer-encoding'];

/** @internal A `Response` with `head`'s status, headers and decoded body text; a new one each call. */
export function responseOf(head: ResponseHead | undefined): Response {
  const { status, headers, body } = head ?? UNKNOWN_HEAD;
  const copy = new Headers(headers);
  for (const name of WIRE_HEADERS) copy.delete(name);
  return new Response(body ?? null, { status, headers: copy });
}

/** A `Promise<T>` of a call's value; `.withResponse()` and `.asResponse()` read the same single request. */
export class APIPromise<T> extends Promise<T> {
  static override get [Symbol.species](): PromiseConstructor {
    return Promise;
  }

  readonly #answered: Promise<Answered<T>>;
  #data: Promise<T> | undefined;
  #withResponse: Promise<WithResponse<T>> | undefined;

  /** @internal Built by the client's resources. */
  constructor(answered: Promise<Answered<T>>) {
    // Unused: `then`/`catch`/`finally` read `answered`, so an unused form reports no unhandled rejection.
    super((resolve) => resolve(undefined as unknown as T));
    this.#answered = answered;
  }

  #value(): Promise<T> {
    this.#data ??= this.#answered.then((answer) => answer.data);
    return this.#data;
  }

  /**
   * The value with its response and request id, the same object each call. @throws the call's error
   * (rejects).
   */
  withResponse(): Promise<WithResponse<T>> {
    this.#withResponse ??= this.#answered.then((answer) => withResponseOf(answer.data, answer.head));
    return this.#withResponse;
  }

  /** The response with its decoded body, a new one each call. @throws the call's error (rejects). */
  asResponse(): Promise<Response> {
    return this.#answered.then((answer) => responseOf(answer.head));
  }

  // biome-ignore lint/suspicious/noThenProperty: a Promise subclass overrides `then` to read the answer.
  override then<TResult1 = T, TResult2 = never>(
    onFulfilled?: ((value: T) => TResult1 | PromiseLike<TResult1>) | null,
    onRejected?: ((reason: unknown) => TResult2 | PromiseLike<TResult2>) | null,
  ): Promise<TResult1 | TResult2> {
    return this.#value().then(onFulfilled, onRejected);
  }

  override catch<TResult = never>(
    onRejected?: ((reason: unknown) => TResult | PromiseLike<TResult>) | null,
  ): Promise<T | TResult> {
    return this.#value().catch(onRejected);
  }

  override finally(onFinally?: (() => void) | null): Promise<T> {
    return this.#value().finally(onFinally);
  }
}
