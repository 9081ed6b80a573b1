/** Whether hookline will give a waiting delivery up without another attempt, as things stand. */
import type { CircuitRecord, Delivery, Endpoint } from "../domain/types.js";
import { endedBeforeSending } from "../engine/decide.js";
import type { ResolvedPolicy } from "../engine/policy.js";

/** A delivery as far as where it stands: its state, its own time, and its retry window. */
export type Waiting = Pick<Delivery, "state" | "nextAttemptAt" | "attemptCount" | "firstAttemptAt">;

/** When a waiting delivery is given up unsent, and the reason its record will give. */
export interface EndsUnsent {
  at: number;
  reason: string;
}

/**
 * When hookline gives a waiting delivery up unsent, and the reason its record will give, or null
 * when its next attempt is to be made. When its own time comes, the engine holds it for its
 * endpoint's open circuit and ends it there if the probe falls past its retry window (or its
 * policy, cut since, has no attempt left): the message's page said "next attempt in 30 min", at
 * the probe, of a delivery given up a minute later. A disabled endpoint's waiting deliveries are
 * given up at their time unless it is enabled first, which the answer says by itself. The policy
 * is asked for only of a delivery that was attempted and waits (a caller may pass one it resolved
 * already).
 */
export function endsUnsent(
  d: Waiting,
  ep: Pick<Endpoint, "disabled">,
  circuit: CircuitRecord,
  policy: () => ResolvedPolicy,
): EndsUnsent | null {
  if (d.state !== "pending" || d.nextAttemptAt === null || d.attemptCount === 0) return null;
  if (ep.disabled) return null;
  const probe = circuit.state === "open" ? (circuit.nextProbeAt ?? 0) : 0;
  const held = {
    attemptCount: d.attemptCount,
    firstAttemptAt: d.firstAttemptAt,
    dueAt: Math.max(d.nextAttemptAt, probe),
  };
  const ended = endedBeforeSending(held, policy());
  return ended ? { at: d.nextAttemptAt, reason: ended.reason } : null;
}
