/**
 * A 429 is the receiver pacing hookline, not failing: the circuit breaker does not count it, and
 * the delivery is retried when the receiver asked. `endpoint_failing` counted it as a failed
 * attempt all the same, so a receiver that throttles hard (two 429s before each 200) was
 * reported failing, and singled out among healthy others, while it took every delivery. A 429
 * now counts toward neither side of an endpoint's health, here as in the shipped Prometheus rule.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { anEndpoint, post } from "../support/dlq.js";
import { deliveryOf, startHookline, type TestHookline } from "../support/hookline.js";
import { Receiver } from "../support/receiver.js";

let ok: Receiver;
let paced: Receiver;
let h: TestHookline;
beforeAll(async () => {
  ok = await Receiver.start(() => ({ status: 200 }));
  const asked = new Map<string, number>();
  // Each message is answered 429 twice, "come back at once", then taken.
  paced = await Receiver.start((req) => {
    const n = (asked.get(req.headers["webhook-id"]!) ?? 0) + 1;
    asked.set(req.headers["webhook-id"]!, n);
    return n <= 2 ? { status: 429, headers: { "retry-after": "0" } } : { status: 200 };
  });
  h = await startHookline({
    env: { HOOKLINE_ALERT_INTERVAL_SECONDS: "3600", HOOKLINE_ALERT_ENDPOINT_FOR_MINUTES: "0" },
  });
});
afterAll(async () => {
  await h.stop();
  await ok.close();
  await paced.close();
});

describe("an endpoint that answers 429 before taking each delivery", () => {
  it("is not reported failing", async () => {
    // A first sample, so that the next evaluation's window holds what follows.
    await h.hookline.observability.evaluator.tick();
    const good = await anEndpoint(h, ok.url("/ok"));
    const slow = await anEndpoint(h, paced.url("/paced"), { retry: { delays: [60, 60] } });
    for (let n = 0; n < 10; n++) {
      await h.waitFor(deliveryOf(await post(h, good.appId, { n }), "succeeded"));
    }
    for (let n = 0; n < 5; n++) {
      await h.waitFor(deliveryOf(await post(h, slow.appId, { n }), "succeeded"));
    }
    // 15 attempts, 5 of them answered 200: a third, under the 50 % the rule fires below.
    expect(paced.requests).toHaveLength(15);

    await h.hookline.observability.evaluator.tick();
    const { body } = await h.api<{ firing: { rule: string }[] }>("GET", "/api/v1/alerts");
    expect(body.firing).toEqual([]);
  });
});
