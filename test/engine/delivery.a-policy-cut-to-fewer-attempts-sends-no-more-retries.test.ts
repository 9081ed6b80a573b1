/**
 * Cutting an endpoint's attempts is how a team stops hookline from retrying a receiver: a retry
 * already waiting when the policy changes is not sent once its delivery has made as many attempts
 * as the new policy allows. It is exhausted when it comes due, without a request (dead-lettered,
 * replayable), as one that the new policy's window has no room for is.
 */
import { afterEach, describe, expect, it } from "vitest";
import { endedBeforeSending } from "../../src/engine/decide.js";
import { resolvePolicy } from "../../src/engine/policy.js";
import { FakeClock } from "../support/fake-clock.js";
import { reached, settle, startEngine, type EngineHarness } from "../support/engine.js";
import { Receiver } from "../support/receiver.js";

const DEFAULTS = { retry: { preset: "default" as const }, concurrencyLimit: 10, timeoutMs: 15_000 };
const T0 = Date.UTC(2026, 0, 1);

describe("a retry waiting when the policy changes", () => {
  const policy = (attempts: number) =>
    resolvePolicy(DEFAULTS, null, {
      retry: { base: 10, factor: 1, cap: 10, attempts, window: 3600 },
    });

  it("is ended unsent once its delivery made as many attempts as the policy now allows", () => {
    const waiting = { attemptCount: 3, firstAttemptAt: T0, dueAt: T0 + 30_000 };
    expect(endedBeforeSending(waiting, policy(3))).toMatchObject({
      kind: "dead",
      failureClass: "exhausted",
    });
    expect(endedBeforeSending(waiting, policy(2))).toMatchObject({ kind: "dead" });
    expect(endedBeforeSending(waiting, policy(4))).toBeNull();
  });

  it("a delivery not yet attempted is always sent", () => {
    const fresh = { attemptCount: 0, firstAttemptAt: null, dueAt: T0 };
    expect(endedBeforeSending(fresh, policy(1))).toBeNull();
  });

  let h: EngineHarness | undefined;
  let rx: Receiver | undefined;
  afterEach(async () => {
    await h?.close();
    await rx?.close();
  });

  it("sends nothing more after the endpoint's policy is cut to one attempt", async () => {
    const clock = new FakeClock();
    h = await startEngine({ clock });
    rx = await Receiver.start(() => ({ status: 503 }));
    const ep = await h.addEndpoint(rx.url("/cut"), {
      retry: { delays: [10, 10, 10], window: 600 },
    });
    const id = await h.post({ n: 1 });
    await h.waitFor(reached(id, "pending"));
    expect(rx.requests).toHaveLength(1);

    await h.store.updateEndpoint({ ...ep, deliveryPolicy: { retry: { delays: [], window: 600 } } });
    h.engine.invalidateEndpoint(ep.id);
    await settle();
    clock.advance(11_000);
    const end = await h.waitFor(reached(id, "dead"));
    await settle();

    expect(end).toMatchObject({ failureClass: "exhausted", attempt: null });
    expect(rx.requests).toHaveLength(1);
    expect((await h.store.listDeliveries(id))[0]).toMatchObject({ attemptCount: 1 });
  });
});
