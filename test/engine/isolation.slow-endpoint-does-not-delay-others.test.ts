import { afterEach, describe, expect, it } from "vitest";
import { reached, startEngine, type EngineHarness } from "../support/engine.js";
import { Receiver } from "../support/receiver.js";

describe("per-endpoint isolation", () => {
  let h: EngineHarness;
  let rx: Receiver;
  afterEach(async () => {
    await h.close();
    await rx.close();
  });

  it("an endpoint answering in 3 s, flooded, holds up no other endpoint and never exceeds its effective limit", async () => {
    // Judge slowness on every few samples so the halving shows within one test.
    h = await startEngine({ adaptive: { minSamples: 4, evaluateEveryMs: 0 } });
    rx = await Receiver.start((r) =>
      r.path === "/slow" ? { status: 200, delayMs: 3_100 } : { status: 200 },
    );
    const slow = await h.addEndpoint(
      rx.url("/slow"),
      { concurrencyLimit: 4 },
      {
        filterTypes: ["slow.event"],
      },
    );
    await h.addEndpoint(rx.url("/fast"), undefined, { filterTypes: ["fast.event"] });

    const slowIds: string[] = [];
    for (let i = 0; i < 8; i++) slowIds.push(await h.post({ i }, { eventType: "slow.event" }));
    await rx.waitFor(4, "/slow");
    const fastIds: string[] = [];
    for (let i = 0; i < 40; i++) fastIds.push(await h.post({ i }, { eventType: "fast.event" }));
    for (const id of fastIds) await h.waitFor(reached(id, "succeeded"));

    // Every fast delivery finished while the slow endpoint still had most of its backlog.
    const slowDone = h.events.filter(
      (e) => e.type === "delivery" && e.state === "succeeded" && e.endpointId === slow.id,
    ).length;
    expect(slowDone).toBeLessThan(8);
    expect(rx.on("/fast")).toHaveLength(40);

    for (const id of slowIds) await h.waitFor(reached(id, "succeeded"), 30_000);
    expect(rx.maxConcurrentOn("/slow")).toBeLessThanOrEqual(4);
    const status = h.engine.endpointStatus(slow.id)!;
    expect(status.limit).toBe(4);
    expect(status.effectiveLimit).toBeLessThan(4);
    expect(status.p99LatencyMs).toBeGreaterThan(3_000);
    // Attempts waiting for a slot spent nothing: one attempt per delivery.
    const attempts = await h.store.listAttempts({
      appId: h.app.id,
      endpointId: slow.id,
      limit: 100,
    });
    expect(attempts.data).toHaveLength(8);
  }, 60_000);
});
