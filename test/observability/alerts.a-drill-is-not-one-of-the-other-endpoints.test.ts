/**
 * `endpoint_failing` singles out an endpoint only while the others are healthy. A failure drill's
 * delivery fails on purpose (its receiver answers 503 until its ladder runs out), and those
 * attempts were counted among the others: on a quiet hookline one drill put the others under
 * 95 % and kept a receiver that is down from being reported, in hookline and in the shipped
 * Prometheus rule (which reads hookline_delivery_attempts_total of every endpoint). A drill's
 * attempts are its own now: left out of the rule, and exported under endpoint="_drill".
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { anEndpoint, post } from "../support/dlq.js";
import { deliveryOf, startHookline, type TestHookline } from "../support/hookline.js";
import { scrape } from "../support/metrics.js";
import { Receiver } from "../support/receiver.js";

let ok: Receiver;
let down: Receiver;
let h: TestHookline;
beforeAll(async () => {
  ok = await Receiver.start(() => ({ status: 200 }));
  down = await Receiver.start(() => ({ status: 500 }));
  h = await startHookline({
    env: { HOOKLINE_ALERT_INTERVAL_SECONDS: "3600", HOOKLINE_ALERT_ENDPOINT_FOR_MINUTES: "0" },
  });
});
afterAll(async () => {
  await h.stop();
  await ok.close();
  await down.close();
});

interface Alert {
  rule: string;
  endpointId: string | null;
}

describe("a failure drill beside an endpoint that is down", () => {
  it("does not count among the healthy others, in the alert or in the rule's series", async () => {
    // A first sample, so that the next evaluation's window holds what follows.
    await h.hookline.observability.evaluator.tick();
    const good = await anEndpoint(h, ok.url("/ok"));
    const bad = await anEndpoint(h, down.url("/down"));
    for (let n = 0; n < 10; n++) {
      await h.waitFor(deliveryOf(await post(h, good.appId, { n }), "succeeded"));
    }
    // Five failures in a row open its circuit.
    for (let n = 0; n < 5; n++) {
      await h.waitFor(deliveryOf(await post(h, bad.appId, { n }), "dead"));
    }
    // Its three failed attempts (and a replay that succeeds) would put the others at 11 of 14.
    const run = await h.api<{ passed: boolean }>("POST", "/api/v1/drill");
    expect(run.body.passed).toBe(true);

    await h.hookline.observability.evaluator.tick();
    const { body } = await h.api<{ firing: Alert[] }>("GET", "/api/v1/alerts");
    expect(body.firing.map((a) => [a.rule, a.endpointId])).toEqual([
      ["endpoint_failing", bad.endpointId],
    ]);

    // The drill's attempts are exported under a label of their own, which the rule leaves out.
    const m = await scrape(h.url, h.token);
    const attempts = [...m.keys()].filter((k) => k.startsWith("hookline_delivery_attempts_total"));
    expect(attempts.some((k) => k.includes('endpoint="_drill"'))).toBe(true);
    const endpoints = new Set(attempts.map((k) => /endpoint="([^"]+)"/.exec(k)![1]));
    expect(endpoints).toEqual(new Set([good.endpointId, bad.endpointId, "_drill"]));
  });
});
