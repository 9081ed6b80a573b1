import { afterEach, describe, expect, it } from "vitest";
import { anEndpoint, dlqChange, PATIENT_BREAKER, post } from "../support/dlq.js";
import { deliveryOf, startHookline, type TestHookline } from "../support/hookline.js";
import { Receiver } from "../support/receiver.js";

describe("an endpoint at its dead-letter depth cap", () => {
  let h: TestHookline;
  let rx: Receiver;
  afterEach(async () => {
    await h.stop();
    await rx.close();
  });

  it("keeps no more records; each dead letter past the cap is counted and leaves a tombstone", async () => {
    h = await startHookline({
      env: { HOOKLINE_DLQ_MAX_PER_ENDPOINT: "3" },
      overrides: { breaker: PATIENT_BREAKER },
    });
    rx = await Receiver.start(() => ({ status: 404 }));
    const ep = await anEndpoint(h, rx.url("/hooks"), {});
    // One at a time: deliveries that fail together are written in whichever order their outcomes
    // reach the batch, and which of them the cap turns into tombstones follows that order.
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) {
      ids.push(await post(h, ep.appId, { i }, { eventId: `e-${i}` }));
      await h.waitFor(deliveryOf(ids[i]!, "dead"));
    }

    const records = await h.api<{ data: { messageId: string }[] }>(
      "GET",
      `/api/v1/dlq?endpoint_id=${ep.endpointId}&order=ascending`,
    );
    expect(records.body.data.map((r) => r.messageId)).toEqual(ids.slice(0, 3));

    const summary = await h.api<{ data: Record<string, unknown>[] }>("GET", "/api/v1/dlq/summary");
    expect(summary.body.data).toEqual([
      expect.objectContaining({
        endpointId: ep.endpointId,
        open: 3,
        depth: 3,
        depthCap: 3,
        overflowed: 2,
        lastOverflowAt: expect.any(String),
      }),
    ]);
    const overflow = await h.api<{ data: Record<string, unknown>[] }>(
      "GET",
      `/api/v1/dlq/overflow?app_id=${ep.appId}&order=ascending`,
    );
    expect(overflow.body.data).toEqual([
      expect.objectContaining({ messageId: ids[3], eventId: "e-3", failureClass: "permanent" }),
      expect.objectContaining({ messageId: ids[4], eventId: "e-4", failureClass: "permanent" }),
    ]);
    expect(h.events.filter(dlqChange("overflowed"))).toHaveLength(2);

    // The message behind a tombstone is still there to be resent once the cause is fixed.
    rx.behave(() => ({ status: 200 }));
    await h.svix.messageAttempt.resend(ep.appId, ids[4]!, ep.endpointId);
    await h.waitFor(deliveryOf(ids[4]!, "succeeded"));
    expect(rx.requests.at(-1)!.headers["webhook-id"]).toBe(ids[4]);
  });
});
