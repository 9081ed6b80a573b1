/** When a waiting delivery's request goes, as the API says it (`nextAttempt`). */
import type { CircuitRecord, Endpoint } from "../domain/types.js";
import { endedBeforeSending } from "../engine/decide.js";
import type { ResolvedPolicy } from "../engine/policy.js";

/** A waiting delivery: its own time, and where its retry window stands. */
export interface Waiting {
  nextAttemptAt: number | null;
  attemptCount: number;
  firstAttemptAt: number | null;
}

/**
 * A waiting delivery's next attempt: its own time, or its endpoint's next probe when the circuit
 * is open and the probe is later, as nothing is sent before it. Worked out as the answer is read,
 * from the circuit the answer holds anyway, rather than written by the engine: a retry whose
 * failure came in beside the one that opened the circuit is committed just after the circuit put
 * off the endpoint's waiting deliveries, and keeps its own time (30 s on) in the store until it
 * comes due and is put off then; so does a message accepted while the circuit is open, until it
 * is claimed. Writing those again would cost the engine a write each; reading the circuit costs
 * nothing more here. At the probe one delivery goes; the rest follow once it succeeds, or move to
 * the next probe if it fails, so the probe is the soonest any of them can go.
 *
 * Its own time stands where hookline gives the delivery up then, unsent: at a disabled endpoint,
 * and for a retry the probe would put past its window (the engine ends it when it comes due).
 */
export function nextAttemptOf(
  d: Waiting,
  ep: Pick<Endpoint, "disabled">,
  circuit: CircuitRecord,
  policy: ResolvedPolicy,
): number | null {
  const own = d.nextAttemptAt;
  if (own === null || ep.disabled || circuit.state !== "open") return own;
  const probe = circuit.nextProbeAt;
  if (probe === null || probe <= own) return own;
  return endedBeforeSending({ ...d, dueAt: probe }, policy) ? own : probe;
}
