/**
 * The sandbox's own HTTP plumbing: an unneeded body discarded before answering, and the answer to a
 * `CONNECT`. Body reads, request targets, the 413, 400 and 500 answers, listen and close come from the
 * SDK (`delivery-task-sdk/internal`), which the mock's HTTP server uses too.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import { answerFailure, DEFAULT_MAX_BODY_BYTES } from 'delivery-task-sdk/internal';

/**
 * Discards an unneeded request body (at most `maxBytes`, else closes after answering), then runs `run`:
 * a client still sending when the connection closed would see a reset. Exceptions go to {@link
 * answerFailure}.
 */
export function answerAfterBody(
  request: IncomingMessage,
  response: ServerResponse,
  run: () => void,
  maxBytes: number = DEFAULT_MAX_BODY_BYTES,
): void {
  const answer = () => {
    try {
      run();
    } catch (error) {
      answerFailure(response, error);
    }
  };
  const declared = request.headers['content-length'];
  const framed = declared !== undefined || request.headers['transfer-encoding'] !== undefined;
  if (request.readableEnded || !framed || Number(declared ?? 0) > maxBytes) {
    if (framed && !request.readableEnded) response.shouldKeepAlive = false;
    answer();
    return;
  }
  let length = 0;
  let answered = false;
  const once = () => {
    if (answered) return;
    answered = true;
    answer();
  };
  request.on('data', (chunk: Buffer) => {
    length += chunk.length;
    if (length > maxBytes) {
      response.shouldKeepAlive = false;
      once();
    }
  });
  request.once('end', once);
  request.once('error', () => response.destroy());
}

/** `Allow` of the 405 answering a `CONNECT`: the methods the sandbox serves somewhere. */
export const SANDBOX_METHODS = 'GET, HEAD, POST, DELETE';

/**
 * Answers a `CONNECT` (the server's `connect` event, which no request listener sees; unheard, Node closes
 * the socket unanswered) with 405 and `Allow`, then closes the socket.
 */
export function answerConnect(socket: Duplex): void {
  const body = '{"message":"Method CONNECT is not allowed","code":"METHOD_NOT_ALLOWED"}';
  socket.on('error', () => socket.destroy());
  socket.end(
    `HTTP/1.1 405 Method Not Allowed\r\nallow: ${SANDBOX_METHODS}\r\ncontent-type: application/json\r\ncontent-length: ${body.length}\r\nconnection: close\r\n\r\n${body}`,
  );
}
