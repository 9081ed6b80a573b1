/**
 * `hookline_retry_after_total` counts the Retry-After headers that set a retry's delay: honoured,
 * capped, or ignored for the ladder's. One on a delivery's last attempt schedules nothing, so it is
 * counted neither there nor in the endpoint's own `retryAfter` counts: with a receiver that always
 * answers 429 with Retry-After, the counts equal the retries scheduled.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { anEndpoint, ONE_ATTEMPT, PATIENT_BREAKER, post } from "../support/dlq.js";
import { deliveryOf, startHookline, type TestHookline } from "../support/hookline.js";
import { scrape } from "../support/metrics.js";
import { Receiver } from "../support/receiver.js";

let h: TestHookline;
let rx: Receiver;
beforeAll(async () => {
  h = await startHookline({ overrides: { breaker: PATIENT_BREAKER } });
  rx = await Receiver.start(() => ({ status: 429, headers: { "retry-after": "0" } }));
});
afterAll(async () => {
  await h.stop();
  await rx.close();
});

describe("Retry-After counts", () => {
  it("leave out a Retry-After after which no retry comes", async () => {
    const three = await anEndpoint(h, rx.url("/three"), {
      retry: { delays: [0, 0], jitter: { strategy: "none" } },
    });
    const one = await anEndpoint(h, rx.url("/one"), ONE_ATTEMPT);
    for (const ep of [three, one]) {
      await h.waitFor(deliveryOf(await post(h, ep.appId, {}), "dead"));
    }
    expect(rx.requests.length).toBe(4);

    const s = await scrape(h.url, h.token);
    const of = (name: string, endpointId: string) =>
      s.get(`${name}{endpoint="${endpointId}"}`) ?? 0;
    const honoured = (endpointId: string) =>
      s.get(`hookline_retry_after_total{endpoint="${endpointId}",use="honoured"}`) ?? 0;
    expect(of("hookline_retries_scheduled_total", three.endpointId)).toBe(2);
    expect(honoured(three.endpointId)).toBe(2);
    expect(of("hookline_retries_scheduled_total", one.endpointId)).toBe(0);
    expect(honoured(one.endpointId)).toBe(0);

    for (const [ep, n] of [
      [three, 2],
      [one, 0],
    ] as const) {
      const view = await h.api<{ retryAfter: unknown }>(
        "GET",
        `/api/v1/app/${ep.appId}/endpoint/${ep.endpointId}`,
      );
      expect(view.body.retryAfter).toEqual({ honoured: n, capped: 0, ignored: 0 });
    }
  });
});
