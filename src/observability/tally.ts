/**
 * Running totals since start, kept next to the Prometheus counters for hookline's own alert
 * evaluator: it samples these each tick and works on differences, so it needs no PromQL.
 */
import type { DeadLetterChange } from "../store/port.js";

/** Attempts and successes of one endpoint since the last drain. */
export interface EndpointCounts {
  attempts: number;
  successes: number;
}

/** Plain counters; see the module comment. */
export class Tally {
  firstAttempts = 0;
  retries = 0;
  succeeded = 0;
  exhausted = 0;
  permanent = 0;
  /** Records that left the dead-letter queue: replayed successfully, resolved or abandoned. */
  dlqLeft = 0;
  dlqRecorded = 0;
  private perEndpoint = new Map<string, EndpointCounts>();
  /** Attempts per second over the last minute: [second, succeeded, failed] per slot. */
  private readonly seconds: [number, number, number][] = Array.from({ length: 60 }, () => [
    -1, 0, 0,
  ]);

  /** Attempts that succeeded and failed in the 60 seconds before `now`. */
  lastMinute(now: number): { succeeded: number; failed: number } {
    const sec = Math.floor(now / 1000);
    let succeeded = 0;
    let failed = 0;
    for (const [s, ok, bad] of this.seconds) {
      if (s > sec - 60 && s <= sec) {
        succeeded += ok;
        failed += bad;
      }
    }
    return { succeeded, failed };
  }

  /** Counts an attempt; one of no endpoint (null: a drill's) counts in the last minute only. */
  attempt(endpointId: string | null, success: boolean, now: number): void {
    const sec = Math.floor(now / 1000);
    const slot = this.seconds[sec % 60]!;
    if (slot[0] !== sec) slot.splice(0, 3, sec, 0, 0);
    slot[success ? 1 : 2]++;
    if (endpointId === null) return;
    let c = this.perEndpoint.get(endpointId);
    if (!c) this.perEndpoint.set(endpointId, (c = { attempts: 0, successes: 0 }));
    c.attempts++;
    if (success) c.successes++;
  }

  ended(result: string): void {
    if (result === "succeeded") this.succeeded++;
    else if (result === "exhausted") this.exhausted++;
    else this.permanent++;
  }

  deadLetter(kind: DeadLetterChange["kind"]): void {
    if (kind === "recorded") this.dlqRecorded++;
    if (kind === "replay_succeeded" || kind === "resolved" || kind === "abandoned") this.dlqLeft++;
  }

  /** Retries scheduled per first attempt (0 before any). */
  retryRatio(): number {
    return this.firstAttempts === 0 ? 0 : this.retries / this.firstAttempts;
  }

  /** Per-endpoint counts since the previous call; the map is handed over and started afresh. */
  drainEndpoints(): Map<string, EndpointCounts> {
    const out = this.perEndpoint;
    this.perEndpoint = new Map();
    return out;
  }
}
