/** A logger for a test to read back: what hookline logs, as the JSON lines an operator would get. */
import { Writable } from "node:stream";
import { pino, type Logger, type LoggerOptions } from "pino";

/**
 * A pino logger made with `options` whose output is kept in `lines`, one JSON line a string (no
 * newline), in the order written. Pass it to hookline as `overrides.logger`.
 */
export function loggerToLines(options: LoggerOptions): { logger: Logger; lines: string[] } {
  const lines: string[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _enc, done) {
      lines.push(...chunk.toString("utf8").split("\n").filter(Boolean));
      done();
    },
  });
  return { logger: pino(options, sink), lines };
}
