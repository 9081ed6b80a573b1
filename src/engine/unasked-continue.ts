/**
 * Reading past a `100 Continue` hookline never asked for. HTTP lets a server send one before its
 * real answer whether or not the request carried `Expect: 100-continue`, and a client must read
 * past it (RFC 9110, 15.2); some servers and proxies do send it. undici's HTTP/1.1 client (7.x)
 * instead takes any 100 for a broken response and drops the connection, so a receiver that
 * answered 200 after one was recorded as a reset connection, a failure counted toward its
 * circuit breaker. Other 1xx answers (102, 103) undici reads past itself, but a 100 after one of
 * them reached undici all the same.
 *
 * So every socket hookline sends on drops the interim (1xx) answers that come before an answer,
 * in whatever order, before undici's parser sees them: after each request head is written, the
 * first bytes read are checked. A 101 is left to undici: hookline never asks to switch protocols.
 */
import type { Socket } from "node:net";
import type { buildConnector } from "undici";
import { onEachSocket } from "./each-socket.js";

// "HTTP/1.1 1" and "HTTP/1.0 1", byte by byte; byte 7 is the minor version. Two digits follow.
const INTERIM = Buffer.from("HTTP/1.1 1", "latin1");
const STATUS_END = INTERIM.length + 2;
const HEAD_END = Buffer.from("\r\n\r\n", "latin1");
/**
 * How many bytes of interim answers are read before an answer, in all: past this the request
 * fails. Each is small, but a receiver can send them without end (`102 Processing` as fast as it
 * is read), and they were read up to the deadline, hundreds of MB in one attempt, a sender
 * thread's core spent on one endpoint. The bound of the answer's own headers (sender.ts); what
 * went past it used to be handed to undici's parser, which reads past 102s without end as well.
 */
const MAX_INTERIM_BYTES = 64 * 1024;

/** Wraps an undici connector so each socket it makes reads past interim answers, 100s included. */
export function readingPastContinue(connect: buildConnector.connector): buildConnector.connector {
  return onEachSocket(connect, readPastContinue);
}

/**
 * undici writes each request's head as one string (hookline's bodies are Buffers), and with
 * one request at a time on a connection, the answer to it is the next thing read. undici reads
 * with `socket.read()` on 'readable'; Node's own calls (`read(0)`) pass through untouched.
 */
function readPastContinue(socket: Socket): void {
  const write = socket.write;
  const read = socket.read;
  /** A request head was written and nothing of its answer but 1xx has been read since. */
  let atAnswer = false;
  /** Bytes read that may be the start of a 1xx, waiting for the rest. */
  let held: Buffer | null = null;
  /** Bytes of interim answers read past since the request head was written. */
  let skipped = 0;
  socket.write = function (this: Socket, ...args: Parameters<Socket["write"]>): boolean {
    if (typeof args[0] === "string") {
      atAnswer = true;
      skipped = 0;
    }
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
      const from = pastInterim(data);
      if (from === null) held = data;
      else skipped += from;
      if (skipped + (held?.length ?? 0) > MAX_INTERIM_BYTES) {
        // The request fails with this error, a network error like headers over the bound.
        atAnswer = false;
        held = null;
        this.destroy(new Error(`interim (1xx) answers over ${MAX_INTERIM_BYTES / 1024} KiB`));
        return null;
      }
      if (from === null || from === data.length) continue;
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
 * Where the bytes after the interim answers at the start of `data` begin (`data.length` if it
 * holds interim answers only), or null if `data` ends within what may be one.
 */
function pastInterim(data: Buffer): number | null {
  let at = 0;
  for (;;) {
    const left = data.length - at;
    if (left === 0) return at;
    const n = Math.min(left, INTERIM.length);
    for (let i = 0; i < n; i++) {
      const b = data[at + i]!;
      // The minor version may be 0 or 1.
      if (b !== INTERIM[i] && !(i === 7 && b === 0x30)) return at;
    }
    for (let i = INTERIM.length; i < Math.min(left, STATUS_END); i++) {
      if (!isDigit(data[at + i]!)) return at;
    }
    if (left <= STATUS_END) return null;
    // 101 Switching Protocols is no interim answer, and "HTTP/1.1 1000" is no status: the status
    // is three digits, then a space or the line's end.
    if (data[at + INTERIM.length] === 0x30 && data[at + INTERIM.length + 1] === 0x31) return at;
    const after = data[at + STATUS_END];
    if (after !== 0x20 && after !== 0x0d) return at;
    const end = data.indexOf(HEAD_END, at);
    if (end === -1) return null;
    at = end + HEAD_END.length;
  }
}

function isDigit(b: number): boolean {
  return b >= 0x30 && b <= 0x39;
}
