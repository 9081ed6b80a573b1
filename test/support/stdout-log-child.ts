/**
 * Run as a child process by the exit log test, with serve's log on its stdout.
 *
 * `held <fifo>`: with libuv's one thread (UV_THREADPOOL_SIZE=1) held by an open of the FIFO,
 * which waits for a writer, it logs `first` (whose write waits behind the open) and `second`,
 * then ends as serve does: the log's end, then exit 0. The thread is let go once the end waits, or
 * once the process exits if it does not.
 *
 * `failed`: logs until the log's stdout refuses a line, then ends the log, and says on stderr
 * whether the end came at once (`at once`) or waited (`waited`).
 */
import { closeSync, open, openSync } from "node:fs";
import { pino } from "pino";
import { stdoutLog } from "../../src/cli/stdout-log.js";

const [mode, fifo] = process.argv.slice(2);
const log = stdoutLog();
const logger = pino(log.stream);

if (mode === "held") {
  open(fifo!, "r", (err, fd) => err || closeSync(fd));
  let holding = true;
  const letGo = () => {
    if (holding) closeSync(openSync(fifo!, "w"));
    holding = false;
  };
  process.on("exit", letGo);
  logger.info("first");
  logger.info("second");
  log.end(() => process.exit(0));
  letGo();
} else {
  let refused = false;
  (log.stream as unknown as NodeJS.EventEmitter).once("error", () => (refused = true));
  while (!refused) {
    logger.info("a line");
    await new Promise((r) => setImmediate(r));
  }
  let ended = false;
  log.end(() => (ended = true));
  process.stderr.write(ended ? "at once\n" : "waited\n");
  process.exit(0);
}
