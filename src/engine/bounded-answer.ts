/**
 * A bound on the bytes one answer may take on the wire. undici bounds an answer's headers and
 * hookline the interim answers and the body it reads (sender.ts, unasked-continue.ts), but
 * nothing counted a status line that never ends, blank lines before it without end, or chunk
 * framing (a chunk extension without end) that carries no body: a receiver sending those was read
 * as fast as it could send until the deadline, over a GB in one attempt on loopback, a sender
 * thread's core spent on one endpoint for up to 30 s.
 */
import type { Socket } from "node:net";
import type { buildConnector } from "undici";
import { onEachSocket } from "./each-socket.js";

/**
 * Far above what an answer hookline reads in full can take: 64 KiB of interim answers, 64 KiB of
 * headers, 64 KiB of body sent even a byte a chunk (about 6 bytes on the wire for each).
 */
export const MAX_ANSWER_BYTES = 1024 * 1024;

/** Wraps an undici connector so each socket it makes drops an answer past MAX_ANSWER_BYTES. */
export function boundingAnswers(connect: buildConnector.connector): buildConnector.connector {
  return onEachSocket(connect, bound);
}

/**
 * undici writes each request's head as one string and reads with `socket.read()` (see
 * unasked-continue.ts): the bytes read since the last head written are the answer to it. Past the
 * bound the connection is dropped: a request whose status is known keeps it, as when a body is
 * cut off (sender.ts); one without fails with this detail.
 */
function bound(socket: Socket): void {
  const write = socket.write;
  const read = socket.read;
  let answered = 0;
  socket.write = function (this: Socket, ...args: Parameters<Socket["write"]>): boolean {
    if (typeof args[0] === "string") answered = 0;
    return write.apply(this, args);
  } as Socket["write"];
  socket.read = function (this: Socket, size?: number): unknown {
    const chunk = read.call(this, size) as Buffer | null;
    if (chunk === null) return null;
    // Judged on what came before: a chunk that begins within the bound is whole to the parser.
    if (answered > MAX_ANSWER_BYTES) {
      this.destroy(
        new Error(`no status line within the answer's first ${MAX_ANSWER_BYTES / 1024} KiB`),
      );
      return null;
    }
    answered += chunk.length;
    return chunk;
  };
}
