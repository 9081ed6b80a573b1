/**
 * `hookline serve`'s log on stdout, and its end as the process exits.
 */
import { destination, type DestinationStream } from "pino";

/**
 * Log lines on stdout, as pino writes them by default, that stop once stdout fails for good. pino
 * stops so on EPIPE only; a terminal that was closed answers EIO, which pino throws (ending a stop
 * half-way) and then retries forever at exit, leaving the process hung with its port held.
 *
 * A log file on a full disk (or past its size limit) fails only until there is room, which is
 * when the operator reads it: the stream keeps the lines (up to LOG_BUFFER_BYTES; later ones are
 * dropped) and writes them with the next line once a write works. Until one does, exit does not
 * wait for room: it would retry those lines every 100 ms, hung as above.
 */
const LOG_BUFFER_BYTES = 16 * 1024 * 1024;
const UNTIL_THERE_IS_ROOM = new Set(["ENOSPC", "EDQUOT", "EFBIG"]);

/** How long the process's end waits for its last lines (see end). */
const END_WAIT_MS = 2_000;

/** The log's destination, and how to end it before the process does. */
export interface StdoutLog {
  readonly stream: DestinationStream;
  /**
   * Calls `then` (which ends the process) once the lines logged so far are written: at most
   * END_WAIT_MS later, at once if stdout has failed or waits for room, or if called before.
   */
  end(then: () => void): void;
}

/** The log on stdout (see above). */
export function stdoutLog(): StdoutLog {
  const stream = destination({ dest: 1, sync: false, maxLength: LOG_BUFFER_BYTES });
  const flushSync = stream.flushSync.bind(stream);
  const noop = () => true;
  let waitingForRoom = false;
  let failed = false;
  let ending = false;
  stream.on("error", (err: NodeJS.ErrnoException) => {
    if (UNTIL_THERE_IS_ROOM.has(err.code ?? "")) {
      if (waitingForRoom) return;
      waitingForRoom = true;
      stream.flushSync = noop;
      stream.once("write", () => {
        waitingForRoom = false;
        stream.flushSync = flushSync;
      });
      return;
    }
    failed = true;
    Object.assign(stream, { write: noop, end: noop, flushSync: noop, destroy: noop });
  });
  /**
   * A line's write runs on libuv's threads, and on a loaded machine may not have run yet when the
   * process exits: pino's exit flush writes the lines after it at once, and that one only as the
   * process ends, after them. end() is sonic-boom's way to have every line written, in order, and
   * 'close' says they were (no public call tells whether a write is in flight; flush() does not
   * wait for one).
   */
  const end = (then: () => void) => {
    if (ending || failed || waitingForRoom) return then();
    ending = true;
    let done = false;
    const finish = () => {
      if (done) return;
      done = true;
      then();
    };
    setTimeout(finish, END_WAIT_MS);
    stream.once("close", finish);
    stream.once("error", finish);
    // Closed, the stream throws on a line: one logged as the process ends is dropped instead.
    const write = stream.write.bind(stream);
    stream.write = (line: string) => closed(stream) || write(line);
    stream.end();
  };
  return { stream, end };
}

/** Whether sonic-boom has closed `stream` (its untyped `destroyed`, set as it closes). */
const closed = (stream: DestinationStream) =>
  (stream as { destroyed?: boolean }).destroyed === true;
