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
 * A request can also be queued behind the body of the one before, which the receiver answered
 * before reading it: its writing still under way, the connection is kept alive all the same, and
 * the reset ends it with the next request's bytes not yet handed to the kernel.
 *
 * An error that ends a connection already made is remembered here, with whether a request was
 * left unwritten; the sender sends a request again, once, on another connection, when it failed
 * with one before any of it was written (sender.ts). Errors made while connecting reach undici
 * through the connector's callback, not the socket: a receiver refusing connections still fails
 * the attempt as before.
 */
import type { Socket } from "node:net";
import type { buildConnector } from "undici";
import { onEachSocket } from "./each-socket.js";

/** Errors that ended connections once made; weak, so each goes with its request. */
const endedConnections = new WeakSet<Error>();
/** Of those, errors that ended a connection with a request head not yet handed to the kernel. */
const leftUnwritten = new WeakSet<Error>();

/** Wraps an undici connector so errors that end the connections it makes are known as such. */
export function rememberingConnectionErrors(
  connect: buildConnector.connector,
): buildConnector.connector {
  return onEachSocket(connect, rememberEnding);
}

/**
 * Every error that ends a connection passes through `destroy`, a read's and a write's as
 * undici's own, and before its 'error' event, which fails the requests: there, what the socket
 * still buffers is known. A request head (undici writes heads as strings, bodies as Buffers)
 * buffered there was queued behind a body still being written, and never sent.
 */
/** Writable's own view of what it holds unwritten (not in Node's types). */
interface Buffered {
  writableBuffer: { chunk: unknown }[];
}

function rememberEnding(socket: Socket): void {
  const destroy = socket.destroy;
  socket.destroy = function (this: Socket, error?: Error) {
    if (error instanceof Error && !this.destroyed) {
      endedConnections.add(error);
      const buffered = (this as unknown as Buffered).writableBuffer;
      if (buffered.some((b) => typeof b.chunk === "string")) leftUnwritten.add(error);
    }
    return destroy.call(this, error);
  };
}

/**
 * Whether `error` ended a connection that had been made (not the making of one) and, where the
 * request was `started` on it by undici, before any of it was written.
 */
export function endedBeforeWriting(error: unknown, started: boolean): boolean {
  if (!(error instanceof Error)) return false;
  return started ? leftUnwritten.has(error) : endedConnections.has(error);
}
