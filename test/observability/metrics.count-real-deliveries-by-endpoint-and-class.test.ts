/**
 * /metrics after real deliveries to real receivers: each endpoint's attempts by status class,
 * first attempts, retries, exhaustions and permanent failures, Retry-After, latency, the
 * dead-letter queue, replays, circuit and concurrency gauges; and /api/v1/stats.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { DeliveryPolicy } from "../../src/domain/types.js";
import { anEndpoint, PATIENT_BREAKER, post } from "../support/dlq.js";
import { deliveryOf, startHookline, type TestHookline } from "../support/hookline.js";
import { scrape } from "../support/metrics.js";
import { Receiver } from "../support/receiver.js";

const QUICK: DeliveryPolicy = { retry: { delays: [0, 0], jitter: { strategy: "none" } } };

let h: TestHookline;
let rx: Receiver;
beforeAll(async () => {
  h = await startHookline({ overrides: { breaker: PATIENT_BREAKER } });
  let flaky = 0;
  let limited = 0;
  let gone = true;
  rx = await Receiver.start((req) => {
    if (req.path === "/ok") return { status: 200 };
    if (req.path === "/flaky") return { status: flaky++ === 0 ? 503 : 200 };
    if (req.path === "/limited") {
      return limited++ === 0 ? { status: 429, headers: { "retry-after": "1" } } : { status: 200 };
    }
    if (req.path === "/gone") return { status: gone ? 404 : 200 };
    if (req.path === "/toggle") gone = false;
    return { status: 500 };
  });
});
afterAll(async () => {
  await h.stop();
  await rx.close();
});

const at = (id: string, labels = "") => `{endpoint="${id}"${labels ? `,${labels}` : ""}}`;

describe("metrics after real deliveries", () => {
  it("count each endpoint's outcomes, the queue and the dead-letter queue", async () => {
    const ok = await anEndpoint(h, rx.url("/ok"), QUICK);
    const flaky = await anEndpoint(h, rx.url("/flaky"), QUICK);
    const limited = await anEndpoint(h, rx.url("/limited"), QUICK);
    const gone = await anEndpoint(h, rx.url("/gone"), QUICK);
    const broken = await anEndpoint(h, rx.url("/broken"), QUICK);
    const closed = await Receiver.start();
    const refusedUrl = closed.url("/nobody");
    await closed.close();
    const down = await anEndpoint(h, refusedUrl, { retry: { preset: "manual" } });

    const m1 = await post(h, ok.appId, { n: 1 });
    const m2 = await post(h, ok.appId, { n: 2 });
    const m3 = await post(h, flaky.appId, {});
    const m4 = await post(h, limited.appId, {});
    const m5 = await post(h, gone.appId, {});
    const m6 = await post(h, broken.appId, {});
    const m7 = await post(h, down.appId, {});
    for (const m of [m1, m2, m3, m4]) await h.waitFor(deliveryOf(m, "succeeded"));
    for (const m of [m5, m6, m7]) await h.waitFor(deliveryOf(m, "dead"));

    const s = await scrape(h.url, h.token);
    const v = (name: string) => s.get(name) ?? 0;
    expect(v(`hookline_delivery_attempts_total${at(ok.endpointId, 'class="2xx"')}`)).toBe(2);
    expect(v(`hookline_first_attempts_total${at(ok.endpointId)}`)).toBe(2);
    expect(v(`hookline_deliveries_ended_total${at(ok.endpointId, 'result="succeeded"')}`)).toBe(2);
    expect(v(`hookline_receiver_ack_seconds_count${at(ok.endpointId)}`)).toBe(2);

    expect(v(`hookline_delivery_attempts_total${at(flaky.endpointId, 'class="5xx"')}`)).toBe(1);
    expect(v(`hookline_delivery_attempts_total${at(flaky.endpointId, 'class="2xx"')}`)).toBe(1);
    expect(v(`hookline_retries_scheduled_total${at(flaky.endpointId)}`)).toBe(1);

    const rl = limited.endpointId;
    expect(v(`hookline_delivery_attempts_total${at(rl, 'class="4xx_rate_limited"')}`)).toBe(1);
    const uses = ["honoured", "capped", "ignored"].map((u) =>
      v(`hookline_retry_after_total${at(rl, `use="${u}"`)}`),
    );
    expect(uses.reduce((a, b) => a + b)).toBe(1);

    const g = gone.endpointId;
    expect(v(`hookline_delivery_attempts_total${at(g, 'class="4xx_permanent"')}`)).toBe(1);
    expect(v(`hookline_deliveries_ended_total${at(g, 'result="permanent"')}`)).toBe(1);

    const b = broken.endpointId;
    expect(v(`hookline_delivery_attempts_total${at(b, 'class="5xx"')}`)).toBe(3);
    expect(v(`hookline_retries_scheduled_total${at(b)}`)).toBe(2);
    expect(v(`hookline_deliveries_ended_total${at(b, 'result="exhausted"')}`)).toBe(1);

    const d = down.endpointId;
    expect(v(`hookline_delivery_attempts_total${at(d, 'class="transport_error"')}`)).toBe(1);

    // 7 first attempts and 4 retries: flaky 1, limited 1 (after its 429), broken 2.
    expect(v("hookline_retry_ratio")).toBeCloseTo(4 / 7, 5);
    expect(v("hookline_dlq_depth")).toBe(3);
    expect(v(`hookline_dlq_endpoint_depth${at(g)}`)).toBe(1);
    expect(v(`hookline_dlq_endpoint_oldest_age_seconds${at(g)}`)).toBeGreaterThanOrEqual(0);
    expect(v('hookline_dlq_events_total{kind="recorded"}')).toBe(3);
    expect(v("hookline_queue_pending_deliveries")).toBe(0);
    expect(v("hookline_queue_lag_seconds")).toBe(0);
    expect(v(`hookline_circuit_state${at(ok.endpointId, 'state="closed"')}`)).toBe(1);
    expect(v(`hookline_circuit_state${at(ok.endpointId, 'state="open"')}`)).toBe(0);
    expect(v(`hookline_endpoint_concurrency_limit${at(ok.endpointId)}`)).toBe(100);
    expect(v(`hookline_endpoint_effective_limit${at(ok.endpointId)}`)).toBe(100);
    expect(v(`hookline_endpoint_in_flight${at(ok.endpointId)}`)).toBe(0);

    const stats = await h.api<Record<string, number>>("GET", "/api/v1/stats");
    expect(stats.body).toMatchObject({ queueDepth: 0, oldestDueAgeMs: 0, dlqOpen: 3 });
    expect(stats.body.deliveredLastMinute).toBe(4);
    expect(stats.body.failedLastMinute).toBe(7);
    expect(stats.body.dlqOldestAgeMs).toBeGreaterThanOrEqual(0);
  });

  it("count replays and their successes", async () => {
    const list = await h.api<{ data: { id: string; endpointId: string }[] }>("GET", "/api/v1/dlq");
    // The /gone receiver answers 200 from now on: replaying its record succeeds.
    await fetch(rx.url("/toggle"), { method: "POST" });
    const before = await scrape(h.url, h.token);
    const permanent = [...before.keys()].find(
      (k) => k.startsWith("hookline_delivery_attempts_total") && k.includes("4xx_permanent"),
    )!;
    const goneId = /endpoint="([^"]+)"/.exec(permanent)![1];
    const record = list.body.data.find((r) => r.endpointId === goneId)!;
    const res = await h.api("POST", `/api/v1/dlq/${record.id}/replay`, {});
    expect(res.status).toBe(200);
    const after = await scrape(h.url, h.token);
    expect(after.get('hookline_dlq_replays_total{result="succeeded"}')).toBe(1);
    expect(after.get('hookline_dlq_events_total{kind="replay_succeeded"}')).toBe(1);
    expect(after.get("hookline_dlq_depth")).toBe(2);
  });
});
