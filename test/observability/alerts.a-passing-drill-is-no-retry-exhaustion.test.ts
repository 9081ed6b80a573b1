/**
 * A failure drill runs its delivery out of its short ladder on purpose, so that the dead-letter
 * queue records it and a replay can deliver it. That ending was counted as a delivery exhausted:
 * in hookline_deliveries_ended_total{result="exhausted"} and in retry_exhaustion_rate. On a quiet
 * hookline (20 to 100 deliveries ending in 5 minutes) one passing drill put the rate over 1 %, and
 * drills scheduled every few minutes kept the critical alert firing for good, in hookline and in
 * the shipped Prometheus rule, with nothing open in the dead-letter queue to act on. The drill's
 * ending is its own (hookline_drill_runs_total); real deliveries still count.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { anEndpoint, post } from "../support/dlq.js";
import { deliveryOf, startHookline, type TestHookline } from "../support/hookline.js";
import { scrape } from "../support/metrics.js";
import { Receiver } from "../support/receiver.js";

let rx: Receiver;
let h: TestHookline;
beforeAll(async () => {
  rx = await Receiver.start(() => ({ status: 200 }));
  h = await startHookline({
    env: {
      // Fires as soon as the rate is over: the test evaluates by hand, twice.
      HOOKLINE_ALERT_EXHAUSTION_FOR_MINUTES: "0",
      HOOKLINE_ALERT_INTERVAL_SECONDS: "3600",
    },
  });
});
afterAll(async () => {
  await h.stop();
  await rx.close();
});

const exhausted = (m: Map<string, number>) =>
  [...m]
    .filter(([k]) => k.startsWith("hookline_deliveries_ended_total{") && k.includes("exhausted"))
    .reduce((sum, [, v]) => sum + v, 0);

describe("a passing failure drill on a quiet hookline", () => {
  it("is counted as a drill, not as a delivery that exhausted its retries", async () => {
    const { evaluator } = h.hookline.observability;
    await evaluator.tick();
    const ep = await anEndpoint(h, rx.url("/ok"));
    for (let n = 0; n < 20; n++) {
      await h.waitFor(deliveryOf(await post(h, ep.appId, { n }), "succeeded"));
    }
    const run = await h.api<{ passed: boolean }>("POST", "/api/v1/drill");
    expect(run.body.passed).toBe(true);

    const m = await scrape(h.url, h.token);
    expect(m.get('hookline_drill_runs_total{result="passed"}')).toBe(1);
    expect(exhausted(m)).toBe(0);
    await evaluator.tick();
    const alerts = await h.api<{ firing: { rule: string }[] }>("GET", "/api/v1/alerts");
    expect(alerts.body.firing.map((a) => a.rule)).toEqual([]);

    // A real delivery that runs out of its ladder still counts, and fires the alert.
    rx.behave(() => ({ status: 500 }));
    await h.waitFor(deliveryOf(await post(h, ep.appId, { n: "last" }), "dead"));
    expect(exhausted(await scrape(h.url, h.token))).toBe(1);
    await evaluator.tick();
    const after = await h.api<{ firing: { rule: string }[] }>("GET", "/api/v1/alerts");
    expect(after.body.firing.map((a) => a.rule)).toEqual(["retry_exhaustion_rate"]);
  });
});
