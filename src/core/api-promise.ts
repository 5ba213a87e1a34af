/**
 * {@link APIPromise}: what every request method of the client returns. Await it for the parsed value, as
 * before; call `.withResponse()` for the value with its HTTP status, headers and request id, or
 * `.asResponse()` for the response with its body (openai-node's shape). docs/configuration.md "Response
 * metadata and tracing".
 * @module
 */

/** The status, headers and body text of the response a value was parsed from. */
export interface ResponseHead {
  /** HTTP status of the answer, 2xx. */
  readonly status: number;
  /** Response headers as the service sent them. */
  readonly headers: Headers;
  /** The body's text as received and parsed (decoded), when known. */
  readonly body?: string;
}

/** A parsed value with the head of the response it came from (internal form). */
export interface Answered<T> {
  readonly data: T;
  readonly head: ResponseHead | undefined;
}

/** What {@link APIPromise.withResponse} resolves to. */
export interface WithResponse<T> {
  /** The parsed value: the same value awaiting the promise gives. */
  data: T;
  /**
   * The response `data` came from, re-created with its status and headers only: the SDK has already
   * read and parsed the body, so `response.body` is `null` and `response.url` is `''`. Use `data` for the
   * value, or {@link APIPromise.asResponse} for a `Response` with the body. For `tasks.create`, the response of the request that produced the task: the `POST /tasks`, or
   * the list lookup that found it after an unknown outcome (README "Exactly-once creation").
   */
  response: Response;
  /** The service's `x-request-id` header of that response, or `null` when it sent none. */
  requestId: string | null;
}

/** A created task answered without any request of this call whose answer is known (see `withResponse`). */
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

/** Headers that describe the body on the wire, not the decoded text a re-created response carries. */
const WIRE_HEADERS = ['content-encoding', 'content-length', 'transfer-encoding'];

/**
 * @internal A `Response` with the status, headers and body text of `head` (the decoded text the SDK
 * parsed; `content-encoding`, `content-length` and `transfer-encoding` dropped, since they described the
 * bytes on the wire). A new one on each call, so each body can be read.
 */
export function responseOf(head: ResponseHead | undefined): Response {
  const { status, headers, body } = head ?? UNKNOWN_HEAD;
  const copy = new Headers(headers);
  for (const name of WIRE_HEADERS) copy.delete(name);
  return new Response(body ?? null, { status, headers: copy });
}

/**
 * A `Promise<T>` of a call's parsed value, with two more ways to read it. It is a real `Promise`
 * (`instanceof Promise`, `.then`, `.catch`, `.finally`): awaiting it behaves as a plain promise did.
 * The request is sent when the method is called, once, whichever forms are read: `.withResponse()`
 * and `.asResponse()` read the same answer and never send a second request. Every form rejects with the
 * same error when the call fails.
 */
export class APIPromise<T> extends Promise<T> {
  /** Promises derived with `.then` are plain promises. */
  static override get [Symbol.species](): PromiseConstructor {
    return Promise;
  }

  readonly #answered: Promise<Answered<T>>;
  #data: Promise<T> | undefined;
  #withResponse: Promise<WithResponse<T>> | undefined;

  /** @internal Built by the client's resources. */
  constructor(answered: Promise<Answered<T>>) {
    // The base promise is never used: `then`/`catch`/`finally` read `answered`, so a failure is reported
    // only to the forms the caller uses (no unhandled rejection from an unused one).
    super((resolve) => resolve(undefined as unknown as T));
    this.#answered = answered;
  }

  #value(): Promise<T> {
    this.#data ??= this.#answered.then((answer) => answer.data);
    return this.#data;
  }

  /**
   * The parsed value with the response it came from and its request id; see {@link WithResponse}. Every
   * call gives the same object.
   * @throws the call's error (rejects), as awaiting the promise does.
   */
  withResponse(): Promise<WithResponse<T>> {
    this.#withResponse ??= this.#answered.then((answer) => withResponseOf(answer.data, answer.head));
    return this.#withResponse;
  }

  /**
   * The response as a `Response`: its status, headers and body. `.text()`, `.json()` and `.arrayBuffer()`
   * read the same body the SDK parsed (decoded, as UTF-8 text: after gzip, deflate or brotli, so
   * `content-encoding`, `content-length` and `transfer-encoding` are left out of its headers). Each call
   * gives a new `Response`, so the body can be read once per call; no request is sent again. For
   * `tasks.create`, the response of the request that produced the task (see {@link WithResponse}); a
   * create that joined another in flight and made no request gets status 200, no headers and no body.
   * `response.url` is `''`.
   * @throws the call's error (rejects), as awaiting the promise does.
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
