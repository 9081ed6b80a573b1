/**
 * Telling a request that waited on a kept-alive connection when it failed from one the receiver
 * failed. undici queues a request on an idle connection for a turn of the loop before writing it
 * (to see a close already on its way), and if the connection is reset meanwhile it fails every
 * request queued on it with that reset, though none was written. A receiver that answers early (a
 * 413) and drops the connection with the body unread sends such a reset, over TLS often a turn of
 * the loop or more after its answer: the next delivery to it, queued on that connection, was
 * recorded as `connection_reset` (retried, counted toward the circuit breaker), a request the
 * receiver never saw.
 *
 * An error emitted by a connection already made is remembered here; the sender sends a request
 * again, on another connection, when it failed with one before undici started writing it
 * (sender.ts). Errors made while connecting reach undici through the connector's callback, not
 * the socket: a receiver refusing connections still fails the attempt as before.
 */
import type { Socket } from "node:net";
import type { buildConnector } from "undici";

/** Errors emitted by connections once made; weak, so each goes with its request. */
const afterConnecting = new WeakSet<Error>();

/** Wraps an undici connector so errors of the connections it makes are known as such. */
export function rememberingConnectionErrors(
  connect: buildConnector.connector,
): buildConnector.connector {
  return (options, callback) =>
    connect(options, (...args) => {
      // Ahead of undici's own listener, which fails the queued requests with it.
      if (args[1]) (args[1] as Socket).prependListener("error", remember);
      callback(...args);
    });
}

function remember(error: unknown): void {
  if (error instanceof Error) afterConnecting.add(error);
}

/** Whether `error` ended a connection that had been made (not the making of one). */
export function endedAConnection(error: unknown): boolean {
  return error instanceof Error && afterConnecting.has(error);
}
