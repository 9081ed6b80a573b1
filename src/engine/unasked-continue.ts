/**
 * Reading past a `100 Continue` hookline never asked for. HTTP lets a server send one before its
 * real answer whether or not the request carried `Expect: 100-continue`, and a client must read
 * past it (RFC 9110, 15.2); some servers and proxies do send it. undici's HTTP/1.1 client (7.x)
 * instead takes any 100 for a broken response and drops the connection, so a receiver that
 * answered 200 after one was recorded as a reset connection, a failure counted toward its
 * circuit breaker. Other 1xx answers (102, 103) undici reads past itself.
 *
 * So every socket hookline sends on drops the 100s that come before an answer, before undici's
 * parser sees them: after each request head is written, the first bytes read are checked.
 */
import type { Socket } from "node:net";
import type { buildConnector } from "undici";

// "HTTP/1.1 100" and "HTTP/1.0 100", byte by byte; byte 7 is the minor version.
const STATUS_LINE = Buffer.from("HTTP/1.1 100", "latin1");
const HEAD_END = Buffer.from("\r\n\r\n", "latin1");
/** A 100 longer than this is no 100 worth reading past: undici's parser judges it. */
const MAX_CONTINUE_BYTES = 16 * 1024;

/** Wraps an undici connector so each socket it makes reads past unasked-for 100 answers. */
export function readingPastContinue(connect: buildConnector.connector): buildConnector.connector {
  return (options, callback) =>
    connect(options, (...args) => {
      if (args[1]) readPastContinue(args[1]);
      callback(...args);
    });
}

/**
 * undici writes each request's head as one string (hookline's bodies are Buffers), and with
 * one request at a time on a connection, the answer to it is the next thing read. undici reads
 * with `socket.read()` on 'readable'; Node's own calls (`read(0)`) pass through untouched.
 */
function readPastContinue(socket: Socket): void {
  const write = socket.write;
  const read = socket.read;
  /** A request head was written and nothing of its answer but 100s has been read since. */
  let atAnswer = false;
  /** Bytes read that may be the start of a 100, waiting for the rest. */
  let held: Buffer | null = null;
  socket.write = function (this: Socket, ...args: Parameters<Socket["write"]>): boolean {
    if (typeof args[0] === "string") atAnswer = true;
    return write.apply(this, args);
  } as Socket["write"];
  socket.read = function (this: Socket, size?: number): unknown {
    if (!atAnswer || size !== undefined) return read.call(this, size) as unknown;
    for (;;) {
      const chunk = read.call(this) as Buffer | null;
      if (chunk === null) {
        // The connection ended part way through: what was held is the parser's to judge.
        if (held && this.readableEnded) return release();
        return null;
      }
      const data = held ? Buffer.concat([held, chunk]) : chunk;
      held = null;
      const from = pastContinues(data);
      if (from === null) {
        held = data;
        if (held.length > MAX_CONTINUE_BYTES) return release();
        continue;
      }
      if (from === data.length) continue;
      atAnswer = false;
      return from === 0 ? data : data.subarray(from);
    }
  };
  function release(): Buffer {
    const data = held!;
    held = null;
    atAnswer = false;
    return data;
  }
}

/**
 * Where the bytes after the 100s at the start of `data` begin (`data.length` if it holds 100s
 * only), or null if `data` ends within what may be one.
 */
function pastContinues(data: Buffer): number | null {
  let at = 0;
  for (;;) {
    const left = data.length - at;
    if (left === 0) return at;
    const n = Math.min(left, STATUS_LINE.length);
    for (let i = 0; i < n; i++) {
      const b = data[at + i]!;
      // The minor version may be 0 or 1.
      if (b !== STATUS_LINE[i] && !(i === 7 && b === 0x30)) return at;
    }
    if (left <= STATUS_LINE.length) return null;
    // "HTTP/1.1 1000" is no 100: the status is three digits, then a space or the line's end.
    const after = data[at + STATUS_LINE.length];
    if (after !== 0x20 && after !== 0x0d) return at;
    const end = data.indexOf(HEAD_END, at);
    if (end === -1) return null;
    at = end + HEAD_END.length;
  }
}
