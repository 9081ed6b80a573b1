/**
 * The evaluator's rules move on as soon as they judge a tick; the store may refuse the write of
 * that tick (a full disk, a busy database). The alert that fired, or resolved, then must still be
 * stored and announced once the store takes writes again, not lost with the failed save.
 */
import { afterAll, describe, expect, it, vi } from "vitest";
import { LEVEL_CLEAR_FOR_MS, type AlertChanges } from "../../src/observability/alert-rules.js";
import { StoreUnavailableError } from "../../src/errors.js";
import { anEndpoint, post } from "../support/dlq.js";
import { FakeClock } from "../support/fake-clock.js";
import { deliveryOf, startHookline, type TestHookline } from "../support/hookline.js";
import { Receiver } from "../support/receiver.js";

type Alerts = { firing: { rule: string }[]; resolved: { rule: string }[] };

const HOUR = 3_600_000;
let h: TestHookline | null = null;
const rx = await Receiver.start(() => ({ status: 404 }));
afterAll(async () => {
  await h?.stop();
  await rx.close();
});

describe("an alert whose save failed", () => {
  it("is stored and announced at the next tick, when it fired and when it resolved", async () => {
    const clock = new FakeClock(Date.now());
    h = await startHookline({ overrides: { clock } });
    const { evaluator } = h.hookline.observability;
    const told: AlertChanges[] = [];
    evaluator.onChange((c) => told.push(c));
    const ep = await anEndpoint(h, rx.url("/gone"));
    const msg = await post(h, ep.appId, {});
    await h.waitFor(deliveryOf(msg, "dead"));
    await evaluator.tick();

    // The clock's advance runs the evaluator's own tick, whose save the store refuses; the tick
    // awaited after it is the next one.
    const refuseOnce = () => {
      const spy = vi.spyOn(h!.hookline.store, "saveAlerts");
      spy.mockRejectedValueOnce(new StoreUnavailableError("the disk is full"));
      return () => expect(spy.mock.settledResults[0]?.type).toBe("rejected");
    };
    const listed = async () => (await h!.api<Alerts>("GET", "/api/v1/alerts")).body;
    const ruled = (list: { rule: string }[]) => list.filter((a) => a.rule === "dlq_oldest_age");

    let refused = refuseOnce();
    clock.advance(25 * HOUR);
    await evaluator.tick();
    refused();
    expect(ruled((await listed()).firing)).toHaveLength(1);
    expect(told.flatMap((c) => ruled(c.fired))).toHaveLength(1);

    const records = await h.api<{ data: { id: string }[] }>("GET", "/api/v1/dlq");
    for (const r of records.body.data) {
      await h.api("POST", `/api/v1/dlq/${r.id}/resolve`, { note: "fixed by hand" });
    }
    vi.restoreAllMocks();
    // Clear from the next evaluation on; it resolves (and that save is refused) a quiet period on.
    clock.advance(60_000);
    await evaluator.tick();
    refused = refuseOnce();
    clock.advance(LEVEL_CLEAR_FOR_MS);
    await evaluator.tick();
    refused();
    const after = await listed();
    expect(ruled(after.firing)).toEqual([]);
    expect(ruled(after.resolved)).toHaveLength(1);
    expect(told.flatMap((c) => ruled(c.resolved))).toHaveLength(1);
    expect(told.flatMap((c) => ruled(c.fired))).toHaveLength(1);
  });
});
