import { afterEach, describe, expect, it } from "vitest";
import { anEndpoint, deadLetters, post } from "../support/dlq.js";
import { FakeClock } from "../support/fake-clock.js";
import { deliveryOf, startHookline, type TestHookline } from "../support/hookline.js";
import { Receiver } from "../support/receiver.js";

interface Group {
  endpointId: string;
  failureClass: string;
  open: number;
  replaying: number;
  oldestAt: string;
  oldestAgeSeconds: number;
  lastSuccessAt: string | null;
  circuit: { state: string; nextProbeAt: string | null };
  url: string | null;
}

describe("the DLQ summary: the runbook's first two steps in one call", () => {
  let h: TestHookline;
  let rx: Receiver;
  afterEach(async () => {
    await h.stop();
    await rx.close();
  });

  it("groups open records by endpoint and class with the oldest's age, last success and circuit", async () => {
    const clock = new FakeClock();
    h = await startHookline({ overrides: { clock, breaker: { consecutiveFailures: 3 } } });
    rx = await Receiver.start((req) => ({ status: req.path === "/down" ? 503 : 200 }));
    const down = await anEndpoint(h, rx.url("/down"));
    const picky = await anEndpoint(h, rx.url("/picky"), {});

    // The picky endpoint worked once, then refused two messages for good.
    const ok = await post(h, picky.appId, { fine: true });
    await h.waitFor(deliveryOf(ok, "succeeded"));
    const lastSuccess = new Date(clock.now()).toISOString();
    rx.behave((req) => ({ status: req.path === "/down" ? 503 : 422 }));
    clock.advance(60_000);
    await deadLetters(h, picky, 2);
    clock.advance(60_000);
    // The broken one failed three times: its circuit is open.
    await deadLetters(h, down, 3);
    await h.waitFor((e) => e.type === "circuit" && e.endpointId === down.endpointId);
    clock.advance(30_000);

    const res = await h.api<{ generatedAt: string; data: Group[] }>("GET", "/api/v1/dlq/summary");
    expect(res.status).toBe(200);
    expect(res.body.generatedAt).toBe(new Date(clock.now()).toISOString());
    expect(res.body.data).toEqual([
      expect.objectContaining({
        endpointId: picky.endpointId,
        url: rx.url("/picky"),
        failureClass: "permanent",
        open: 2,
        replaying: 0,
        oldestAgeSeconds: 90,
        lastSuccessAt: lastSuccess,
        circuit: expect.objectContaining({ state: "closed" }),
      }),
      expect.objectContaining({
        endpointId: down.endpointId,
        failureClass: "exhausted",
        open: 3,
        oldestAgeSeconds: 30,
        lastSuccessAt: null,
        circuit: expect.objectContaining({ state: "open", nextProbeAt: expect.any(String) }),
      }),
    ]);
    const onlyPicky = await h.api<{ data: Group[] }>(
      "GET",
      `/api/v1/dlq/summary?app_id=${picky.appId}`,
    );
    expect(onlyPicky.body.data.map((g) => g.endpointId)).toEqual([picky.endpointId]);
  });
});
