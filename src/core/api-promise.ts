/** {@link APIPromise}, what every request method returns (docs/configuration.md "Response metadata and tracing"). */

/** The status, headers and body text of the response a value was parsed from. */
export interface ResponseHead {
  readonly status: number;
  readonly headers: Headers;
  /** The decoded body text, when known. */
  readonly body?: string;
}

/** A parsed value with the head of the response it came from (internal form). */
export interface Answered<T> {
  readonly data: T;
  readonly head: ResponseHead | undefined;
}

/** What {@link APIPromise.withResponse} resolves to. */
export interface WithResponse<T> {
  data: T;
  /**
   * The response `data` came from, with status and headers only (`body` null, `url` `''`). For
   * `tasks.create`, that of the request that produced the task: the POST, or the lookup that found it.
   */
  response: Response;
  /** The `x-request-id` header of that response, or `null`. */
  requestId: string | null;
}

/** The head of a create that joined another's flight and made no request. */
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

/** They describe the bytes on the wire, not the decoded text. */
const WIRE_HEADERS = ['content-encoding', 'content-length', 'transfer-encoding'];

/** @internal A new `Response` of `head`, without {@link WIRE_HEADERS}. */
export function responseOf(head: ResponseHead | undefined): Response {
  const { status, headers, body } = head ?? UNKNOWN_HEAD;
  const copy = new Headers(headers);
  for (const name of WIRE_HEADERS) copy.delete(name);
  return new Response(body ?? null, { status, headers: copy });
}

/**
 * A `Promise<T>` of a call's parsed value that also gives its response. The request is sent once, when
 * the method is called, whichever forms are read; every form rejects with the call's error.
 */
export class APIPromise<T> extends Promise<T> {
  static override get [Symbol.species](): PromiseConstructor {
    return Promise;
  }

  readonly #answered: Promise<Answered<T>>;
  #data: Promise<T> | undefined;
  #withResponse: Promise<WithResponse<T>> | undefined;

  /** @internal Built by the client's resources. */
  constructor(answered: Promise<Answered<T>>) {
    // Unused: a failure reaches only the forms the caller reads (no unhandled rejection).
    super((resolve) => resolve(undefined as unknown as T));
    this.#answered = answered;
  }

  #value(): Promise<T> {
    this.#data ??= this.#answered.then((answer) => answer.data);
    return this.#data;
  }

  /** The parsed value with its response and request id; rejects with the call's error. */
  withResponse(): Promise<WithResponse<T>> {
    this.#withResponse ??= this.#answered.then((answer) => withResponseOf(answer.data, answer.head));
    return this.#withResponse;
  }

  /**
   * A new `Response` on each call with the status, headers and decoded body the SDK parsed (without
   * `content-encoding`, `content-length`, `transfer-encoding`); no request is sent again.
   * @throws the call's error (rejects).
   */
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
