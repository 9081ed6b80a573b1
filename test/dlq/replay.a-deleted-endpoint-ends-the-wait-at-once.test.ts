/**
 * A single replay waits for its outcome up to the endpoint's request timeout plus a margin. When
 * the endpoint is deleted meanwhile, the outcome will never come: the replay answers 404 then,
 * not when the wait runs out. Deleted through this process's API, the bus says so; deleted by
 * another process sharing the store, the replay's poll of the store finds its delivery gone.
 * Each wait here is longer than the test's own time limit, so only the deletion can end it.
 */
import { describe, expect, it } from "vitest";
import { systemClock } from "../../src/clock.js";
import { DeadLetterQueue } from "../../src/dlq/service.js";
import type { EngineControl } from "../../src/engine/control.js";
import { EngineEvents } from "../../src/engine/events.js";
import { NotFoundError } from "../../src/errors.js";
import { seedApp } from "../store/behaviour/fixtures.js";
import { deadLetter } from "../store/behaviour/dlq-fixtures.js";
import { aReplayBehindAHeldRequest, untilRecordIs } from "../support/held-replay.js";
import { useCleanup } from "../support/cleanup.js";
import { aSharedStore } from "../support/postgres.js";

/** An engine in another process: this one sends nothing, so the replay stays pending here. */
const elsewhere: EngineControl = {
  wake: () => {},
  invalidateEndpoint: () => {},
  invalidateApplication: () => {},
  callerWaited: () => {},
  endpointStatus: () => null,
  deliveryBudget: () => null,
  intake: () => null,
};

describe("a single replay whose endpoint is deleted while it waits", () => {
  const cleanup = useCleanup();

  it("answers 404 as the API deletes the endpoint, its request still unanswered", async () => {
    // The longest request timeout there is: the wait (timeout + 5 s) outlasts the test.
    const { h, rx, ep, record, answer } = await aReplayBehindAHeldRequest<{
      code: string;
      detail: string;
    }>(cleanup, { HOOKLINE_REQUEST_TIMEOUT_MS: "30000" });
    const deleted = await h.api("DELETE", `/api/v1/app/${ep.appId}/endpoint/${ep.endpointId}`);
    expect(deleted.status).toBe(204);

    const res = await answer;
    expect(res.status).toBe(404);
    expect(res.body).toEqual({
      code: "not_found",
      detail: `dead-letter record ${record.id} (its endpoint was deleted meanwhile) not found`,
    });
    // The request the replay waited behind was never answered: the deletion ended the wait.
    expect(rx.held).toBe(1);
  });

  it("answers 404 when another process sharing the store deletes it", async () => {
    const store = await aSharedStore(cleanup);
    const { app, endpoints } = await seedApp(store);
    const record = await deadLetter(store, app.id);
    const dlq = new DeadLetterQueue({
      store,
      engine: elsewhere,
      // Nothing on this bus: the deletion happens in another process.
      events: new EngineEvents(),
      clock: systemClock,
      // A wait of ten minutes, far beyond the test's limit.
      policyDefaults: { retry: { preset: "manual" }, concurrencyLimit: 1, timeoutMs: 600_000 },
      settings: { maxReplays: 5, replayRate: 5, canarySize: 10, canaryThreshold: 0.9 },
    });

    const answer = dlq.replay(record.id, { actor: "ops", note: null });
    await untilRecordIs(async () => (await store.getDeadLetter(record.id))?.state, "replaying");
    await store.deleteEndpoint(app.id, endpoints[0]!.id);

    const err = await answer.catch((e: unknown) => e);
    expect(err).toBeInstanceOf(NotFoundError);
    expect((err as Error).message).toBe(
      `dead-letter record ${record.id} (its endpoint was deleted meanwhile) not found`,
    );
  });
});
