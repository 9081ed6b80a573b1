/**
 * The one shutdown timeout a stop has in all. Operators set HOOKLINE_SHUTDOWN_TIMEOUT_MS to fit
 * their service manager's wait before SIGKILL; were each phase of a stop (the API's requests,
 * then the deliveries in flight) given the whole timeout, a stop held up in both would take twice
 * as long and be killed. So the deadline is fixed once, as the stop begins, and each phase waits
 * only for what is left of it.
 */
export class StopDeadline {
  private readonly at: number;

  /** A deadline `timeoutMs` from now. */
  constructor(readonly timeoutMs: number) {
    this.at = performance.now() + timeoutMs;
  }

  /** How long is left before the deadline; 0 once it has passed. */
  leftMs(): number {
    return Math.max(0, Math.ceil(this.at - performance.now()));
  }
}
