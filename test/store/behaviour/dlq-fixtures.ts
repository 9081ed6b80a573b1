/** Builders for the dead-letter behaviours: records made the way the engine makes them. */
import { expect } from "vitest";
import type { DeadLetter, FailureClass, ReplayJob } from "../../../src/domain/types.js";
import { newId } from "../../../src/ids.js";
import type {
  ClaimedDelivery,
  DeadLetterChange,
  DeliveryOutcome,
  NewReplayJob,
  Store,
} from "../../../src/store/port.js";
import {
  accept,
  aFailedAttempt,
  anAttempt,
  claimAll,
  HOUR,
  outcomeFor,
  SECOND,
  T0,
  type MessageInput,
} from "./fixtures.js";

export const SIGNED = {
  "webhook-id": "msg_original",
  "webhook-timestamp": "1767225600",
  "webhook-signature": "v1,b3JpZ2luYWw=",
};

/** Records the delivery's last attempt as failed and gives up on it. */
export async function giveUp(
  store: Store,
  d: ClaimedDelivery,
  at: number,
  cls: FailureClass = "exhausted",
): Promise<DeadLetterChange[]> {
  const { changes } = await store.recordAttempts([
    outcomeFor(d, {
      at,
      attempt: aFailedAttempt(at, {
        status: cls === "permanent" ? 404 : 503,
        outcome: cls === "permanent" ? "permanent" : "retryable",
      }),
      next: { kind: "dead", failureClass: cls, reason: `gave up (${cls})` },
      signatureHeaders: SIGNED,
    }),
  ]);
  return changes;
}

/**
 * Accepts a message for `appId` (whose endpoints all get a delivery) and gives up on the delivery
 * to `endpointId` (the only one, if not given) at `at`; returns its record.
 */
export async function deadLetter(
  store: Store,
  appId: string,
  options: MessageInput & { endpointId?: string; at?: number; cls?: FailureClass } = {},
): Promise<DeadLetter> {
  const { endpointId, at = T0 + SECOND, cls, ...input } = options;
  const { message } = await accept(store, appId, { now: at - SECOND, ...input });
  const claimed = (await claimAll(store, at)).filter(
    (d) => d.messageId === message.id && (!endpointId || d.endpointId === endpointId),
  );
  expect(claimed).toHaveLength(1);
  const changes = await giveUp(store, claimed[0]!, at, cls);
  expect(changes.map((c) => c.kind)).toEqual(["recorded"]);
  const record = await store.findDeadLetterByDelivery(claimed[0]!.id);
  return record!;
}

/** Queues a replay of `record` at `now` as "ops" and claims it; fails if it was refused. */
export async function replayClaimed(
  store: Store,
  record: DeadLetter,
  now: number,
  abandonAfter: number | null = null,
): Promise<ClaimedDelivery> {
  const deliveryId = newId("dlv", now);
  const queued = await store.enqueueReplay({
    deadLetterId: record.id,
    deliveryId,
    now,
    actor: "ops",
    note: "receiver fixed",
    abandonAfter,
  });
  expect(queued.ok).toBe(true);
  const claimed = (await claimAll(store, now)).find((d) => d.id === deliveryId);
  expect(claimed).toBeDefined();
  return claimed!;
}

/** The one attempt of a replay and its outcome, as the engine records it. */
export function replayOutcome(d: ClaimedDelivery, at: number, ok: boolean): DeliveryOutcome {
  return outcomeFor(d, {
    at,
    attempt: ok
      ? anAttempt(at, { trigger: "replay" })
      : aFailedAttempt(at, { trigger: "replay", status: 503 }),
    next: ok
      ? { kind: "succeeded" }
      : { kind: "dead", failureClass: "exhausted", reason: "replay failed: HTTP 503" },
  });
}

/** Creates a job, failing the test if it was refused for sharing an endpoint with another. */
export async function aNewJob(store: Store, job: NewReplayJob): Promise<ReplayJob> {
  const created = await store.createReplayJob(job);
  if (!created.ok)
    throw new Error(`job refused: ${created.busy.job.id} holds ${created.busy.endpointId}`);
  return created.job;
}

/**
 * A bulk replay job of the given records, taken up by `runner` at `now` and prepared (its items
 * listed), ready to queue its replays: no canary, 5 a second.
 */
export async function aPreparedReplayJob(
  store: Store,
  ids: string[],
  now: number,
  runner: string,
): Promise<ReplayJob> {
  const job = await aNewJob(store, {
    id: newId("job", now),
    task: "dlq.replay",
    selection: { ids },
    ratePerSecond: 5,
    canarySize: 0,
    canaryThreshold: 0.9,
    startAt: now,
    createdBy: "ops",
    note: null,
    now,
  });
  await store.claimReplayJobs({ now, leaseUntil: now + HOUR, limit: 1, runner });
  await store.prepareReplayJob(job.id, now);
  return job;
}
