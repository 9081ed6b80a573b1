/**
 * hookline_queue_lag_seconds, and the queue_lag alert, with a backlog behind a slow endpoint. The
 * engine claims an endpoint's due deliveries in a batch, so those of an endpoint at its
 * concurrency limit wait in memory for a slot (hookline_endpoint_queued), no longer pending in the
 * store, where the lag was read alone: a slow receiver could hold them for minutes while the lag
 * said 0 and queue_lag stayed quiet, although the docs count them as due and waiting. The lag now
 * also covers the oldest delivery this process holds waiting for a slot.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { anEndpoint, post } from "../support/dlq.js";
import { startHookline, type TestHookline } from "../support/hookline.js";
import { scrape } from "../support/metrics.js";
import { Receiver } from "../support/receiver.js";

let rx: Receiver;
let h: TestHookline;
beforeAll(async () => {
  // A slow receiver: each request takes 1.5 s.
  rx = await Receiver.start(() => ({ status: 200, delayMs: 1_500 }));
  h = await startHookline({
    env: { HOOKLINE_ALERT_QUEUE_LAG_SECONDS: "1", HOOKLINE_ALERT_INTERVAL_SECONDS: "3600" },
  });
});
afterAll(async () => {
  await h.stop();
  await rx.close();
});

describe("deliveries held for a busy endpoint's slot", () => {
  it("count in the queue lag and fire queue_lag", { timeout: 30_000 }, async () => {
    const ep = await anEndpoint(h, rx.url(), { retry: { preset: "default" }, concurrencyLimit: 1 });
    const posted = Date.now();
    let thirdPosted = 0;
    for (let n = 0; n < 6; n++) {
      await post(h, ep.appId, { n });
      if (n === 2) thirdPosted = Date.now();
    }
    // When the first request ends, the engine claims the endpoint's due deliveries: one goes out,
    // the others wait in memory for the endpoint's only slot; none is pending in the store.
    await rx.waitFor(2);
    const status = () => h.hookline.engine.endpointStatus(ep.endpointId);
    expect(status()?.queued).toBe(4);
    // The oldest held delivery (the third message) was due by the time its post was answered. On
    // a loaded machine the posts can take most of the first request's 1.5 s, so wait until it is
    // surely over the 1 s threshold; it stays held until the second request ends, 3 s after the
    // first began.
    while (Date.now() < thirdPosted + 1_100) await new Promise((r) => setTimeout(r, 20));

    const m = await scrape(h.url, h.token);
    const lag = m.get("hookline_queue_lag_seconds")!;
    expect(lag).toBeGreaterThanOrEqual(1.1);
    expect(lag).toBeLessThanOrEqual((Date.now() - posted) / 1000);

    await h.hookline.observability.evaluator.tick();
    const alerts = await h.api<{ firing: { rule: string }[] }>("GET", "/api/v1/alerts");
    expect(alerts.body.firing.map((a) => a.rule)).toEqual(["queue_lag"]);
    const stats = await h.api<{ oldestDueAgeMs: number }>("GET", "/api/v1/stats");
    expect(stats.body.oldestDueAgeMs).toBeGreaterThanOrEqual(1_100);

    // Once they are all sent, nothing waits.
    while ((status()?.queued ?? 0) + (status()?.inFlight ?? 0) > 0) {
      await new Promise((r) => setTimeout(r, 50));
    }
    expect((await scrape(h.url, h.token)).get("hookline_queue_lag_seconds")).toBe(0);
  });
});
