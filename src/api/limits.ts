/**
 * Limits on what one request may carry, below the JSON schemas: header sizes and counts, how
 * long a slow client may take, and the answer a connection gets when it breaks them before any
 * route sees it. Field lengths live with each field in the schemas.
 */
import type { Socket } from "node:net";

/** Headers a request may carry; Node ignores any beyond this count. */
export const MAX_HEADER_COUNT = 100;

/** A whole request must arrive within this; a client trickling bytes cannot hold a connection. */
export const REQUEST_TIMEOUT_MS = 60_000;

const ANSWERS: Record<string, [number, string, string]> = {
  HPE_HEADER_OVERFLOW: [
    431,
    "headers_too_large",
    "the request headers are larger than the server accepts",
  ],
  ERR_HTTP_REQUEST_TIMEOUT: [408, "request_timeout", "the request took too long to arrive"],
};

/** Answers a request Node refused before parsing it, in hookline's JSON error shape. */
export function answerClientError(err: Error & { code?: string }, socket: Socket): void {
  if (err.code === "ECONNRESET" || socket.destroyed) return;
  const [status, code, detail] = ANSWERS[err.code ?? ""] ?? [
    400,
    "bad_request",
    "the request is not valid HTTP",
  ];
  const body = JSON.stringify({ code, detail });
  if (socket.writable) {
    socket.write(
      `HTTP/1.1 ${status} ${code.replace(/_/g, " ")}\r\nContent-Type: application/json\r\n` +
        `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    );
  }
  socket.destroy(err);
}
