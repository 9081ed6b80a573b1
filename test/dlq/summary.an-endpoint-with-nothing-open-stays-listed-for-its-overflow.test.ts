import { afterEach, describe, expect, it } from "vitest";
import { anEndpoint, PATIENT_BREAKER, post } from "../support/dlq.js";
import { deliveryOf, startHookline, type TestHookline } from "../support/hookline.js";
import { Receiver } from "../support/receiver.js";

describe("the DLQ summary of an endpoint whose dead letters overflowed", () => {
  let h: TestHookline;
  let rx: Receiver;
  afterEach(async () => {
    await h.stop();
    await rx.close();
  });

  it("still lists it, with nothing open, once every record of it is resolved", async () => {
    h = await startHookline({
      env: { HOOKLINE_DLQ_MAX_PER_ENDPOINT: "2" },
      overrides: { breaker: PATIENT_BREAKER },
    });
    rx = await Receiver.start(() => ({ status: 404 }));
    const ep = await anEndpoint(h, rx.url("/hooks"), {});
    const quiet = await anEndpoint(h, rx.url("/other"), {});
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) ids.push(await post(h, ep.appId, { i }));
    for (const id of ids) await h.waitFor(deliveryOf(id, "dead"));

    const records = await h.api<{ data: { id: string }[] }>(
      "GET",
      `/api/v1/dlq?endpoint_id=${ep.endpointId}`,
    );
    expect(records.body.data).toHaveLength(2);
    for (const r of records.body.data) {
      const res = await h.api("POST", `/api/v1/dlq/${r.id}/resolve`, { note: "sent by hand" });
      expect(res.status).toBe(200);
    }

    const summary = await h.api<{ data: Record<string, unknown>[] }>("GET", "/api/v1/dlq/summary");
    expect(summary.status).toBe(200);
    expect(summary.body.data).toEqual([
      expect.objectContaining({
        appId: ep.appId,
        endpointId: ep.endpointId,
        url: rx.url("/hooks"),
        failureClass: null,
        open: 0,
        replaying: 0,
        oldestAt: null,
        oldestAgeSeconds: null,
        circuit: expect.objectContaining({ state: "closed" }),
        depth: 0,
        depthCap: 2,
        overflowed: 1,
        lastOverflowAt: expect.any(String),
      }),
    ]);
    // The application filter applies to it like to any group.
    const mine = await h.api<{ data: unknown[] }>("GET", `/api/v1/dlq/summary?app_id=${ep.appId}`);
    expect(mine.body.data).toHaveLength(1);
    const theirs = await h.api<{ data: unknown[] }>(
      "GET",
      `/api/v1/dlq/summary?app_id=${quiet.appId}`,
    );
    expect(theirs.body.data).toEqual([]);
  });
});
