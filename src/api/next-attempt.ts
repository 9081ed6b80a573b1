/** When a waiting delivery's request goes, as the API says it (`nextAttempt`). */
import type { CircuitRecord, Endpoint } from "../domain/types.js";
import type { EndsUnsent } from "./ends-unsent.js";

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
 * Its own time stands where hookline gives the delivery up then, unsent (`ends`, from
 * `endsUnsent`: a retry the probe would put past its window) and at a disabled endpoint.
 */
export function nextAttemptOf(
  own: number | null,
  ep: Pick<Endpoint, "disabled">,
  circuit: CircuitRecord,
  ends: EndsUnsent | null,
): number | null {
  if (own === null || ends || ep.disabled || circuit.state !== "open") return own;
  const probe = circuit.nextProbeAt;
  return probe !== null && probe > own ? probe : own;
}
