/**
 * Reading the receiver's answer before taking a failed write for the attempt's outcome. A
 * receiver may answer before it has read the whole request (a 413 for a body over its limit, a
 * 401 judged from the headers) and drop the connection; hookline, still writing, then meets a
 * write error (ECONNRESET, EPIPE) while the answer sits unread on the socket. Node destroys a
 * socket at its first write error, and with it what the kernel held: the attempt was recorded as
 * `connection_reset` (retried, counted toward the circuit breaker) instead of the receiver's 413
 * (permanent). Which came first depended on timing: a write started after the event loop had
 * looked for readable data but before it read any. Rare on an idle machine, seen under load on a
 * sender thread, and certain when the answer and the reset arrive while the loop is busy.
 *
 * So on every socket hookline sends on, a write that fails because the connection is gone waits
 * until what the connection still holds has been read (its read side ends at once after a reset
 * or a close); undici's parser takes the answer meanwhile, and only then does the write error
 * destroy the socket. Where nothing had arrived, the attempt fails with the write error as before.
 */
import type { Socket } from "node:net";
import type { buildConnector } from "undici";
import { onEachSocket } from "./each-socket.js";

/**
 * The longest a failed write waits for the read side to end. After a reset or a close it ends on
 * the loop's next turn; this bounds the case of a connection gone in one direction only.
 */
const READ_SIDE_WAIT_MS = 1_000;

/** Errors that say the connection is gone, not that this write was refused alone. */
const GONE = new Set(["ECONNRESET", "EPIPE"]);

type WriteCallback = (error?: Error | null) => void;
/** The Writable hooks net.Socket implements, through which every write's outcome passes. */
interface WriteHooks {
  _write(chunk: unknown, encoding: BufferEncoding, callback: WriteCallback): void;
  _writev(chunks: unknown[], callback: WriteCallback): void;
}

/** Wraps an undici connector so each socket it makes reads what it holds before a write fails. */
export function readingBeforeWriteFails(
  connect: buildConnector.connector,
): buildConnector.connector {
  return onEachSocket(connect, readFirst);
}

function readFirst(socket: Socket): void {
  const hooks = socket as unknown as WriteHooks;
  const write = hooks._write;
  const writev = hooks._writev;
  hooks._write = function (this: Socket, chunk, encoding, callback) {
    write.call(this, chunk, encoding, afterReading(this, callback));
  };
  hooks._writev = function (this: Socket, chunks, callback) {
    writev.call(this, chunks, afterReading(this, callback));
  };
}

function afterReading(socket: Socket, callback: WriteCallback): WriteCallback {
  return (error) => {
    const code = (error as NodeJS.ErrnoException | null | undefined)?.code;
    if (!error || !code || !GONE.has(code) || socket.destroyed || socket.readableEnded) {
      callback(error);
      return;
    }
    const timer = setTimeout(done, READ_SIDE_WAIT_MS);
    // The write took the reset's error, so reading ends as if the receiver had closed: undici's
    // own 'end' listener would fail the request as "other side closed". Heard ahead of it, the
    // write error ends the connection, and the attempt says the receiver reset it. 'end' comes
    // only once undici has read all there was, an answer included.
    socket.prependOnceListener("end", done);
    socket.once("close", done);
    // Reading may be paused between undici's reads; this starts it if so.
    socket.read(0);
    function done(): void {
      clearTimeout(timer);
      socket.off("end", done);
      socket.off("close", done);
      callback(error);
    }
  };
}
