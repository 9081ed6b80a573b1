/**
 * The signals that ask a command to stop, what a command they end exits with, and what one that
 * finishes anyway says.
 */

/** Ctrl-C, a service manager's stop, the terminal closed. */
export const STOP_SIGNALS = ["SIGINT", "SIGTERM", "SIGHUP"] as const;
export type StopSignal = (typeof STOP_SIGNALS)[number];

/** The exit code a shell reports for a command a signal ended: 128 and the signal's number. */
export const EXIT_CODE_OF: Readonly<Record<StopSignal, number>> = {
  SIGHUP: 129,
  SIGINT: 130,
  SIGTERM: 143,
};

/**
 * How a command that stops cleanly when asked (`keys rotate`, `store copy`) hears stop signals:
 * until the returned function is called, the first calls `stop` with its name instead of ending
 * the process, and one more, a second or more later, ends it at once, saying what `atOnce` says.
 */
export type StopCleanly = (
  stop: (signal: StopSignal) => void,
  atOnce: (signal: StopSignal) => string,
) => () => void;

/**
 * What a command that stops cleanly says once it finished after a first stop signal heard too late
 * to stop it (`when`): it did not stop, and `outcome` says what it finished.
 */
export function finishedAfter(
  command: string,
  signal: StopSignal,
  when: string,
  outcome: string,
): string {
  return `${command} finished after ${signal}, heard ${when}: ${outcome}`;
}

/**
 * Calls `handler` on each stop signal, in place of ending the process, until the function it
 * returns is called.
 */
export function onStopSignals(handler: (signal: StopSignal) => void): () => void {
  const handlers = STOP_SIGNALS.map((signal) => [signal, () => handler(signal)] as const);
  for (const [signal, h] of handlers) process.on(signal, h);
  return () => {
    for (const [signal, h] of handlers) process.off(signal, h);
  };
}
