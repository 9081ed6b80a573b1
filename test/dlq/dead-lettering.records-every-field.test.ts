import { afterEach, describe, expect, it } from "vitest";
import { anEndpoint, deadLetters, post, type RecordOut } from "../support/dlq.js";
import { deliveryOf, startHookline, type TestHookline } from "../support/hookline.js";
import { Receiver } from "../support/receiver.js";

interface WholeRecord extends RecordOut {
  attempts: Record<string, unknown>[];
  history: Record<string, unknown>[];
  payload: unknown;
  signatureHeaders: Record<string, string>;
}

describe("a receiver that is down: its deliveries land in the DLQ with every field", () => {
  let h: TestHookline;
  let rx: Receiver;
  afterEach(async () => {
    await h.stop();
    await rx.close();
  });

  it("an exhausted delivery keeps payload bytes, signature headers, each attempt and its times", async () => {
    h = await startHookline();
    rx = await Receiver.start(() => ({ status: 503, body: "down for maintenance" }));
    const ep = await anEndpoint(h, rx.url("/hooks"), {
      retry: { delays: [0.05, 0.05], window: 60 },
    });
    const msgId = await post(
      h,
      ep.appId,
      { invoice: 1001, amount: "12.50", note: "ünïcode ✓" },
      { eventType: "invoice.paid", eventId: "inv-1001" },
    );
    await h.waitFor(deliveryOf(msgId, "dead"));
    expect(rx.requests).toHaveLength(3);

    const list = await h.api<{ data: RecordOut[]; done: boolean }>(
      "GET",
      `/api/v1/dlq?app_id=${ep.appId}`,
    );
    expect(list.status).toBe(200);
    expect(list.body.data).toHaveLength(1);
    const id = list.body.data[0]!.id;
    expect(id).toMatch(/^dlq_[0-9A-Z]{26}$/);

    const raw = await fetch(`${h.url}/api/v1/dlq/${id}`, {
      headers: { authorization: `Bearer ${h.token}` },
    });
    const text = await raw.text();
    // The payload is answered as the exact bytes the receiver was sent.
    const sent = rx.requests[2]!;
    expect(text).toContain(`"payload":${sent.body.toString("utf8")}`);
    const record = JSON.parse(text) as WholeRecord;
    expect(record).toMatchObject({
      id,
      appId: ep.appId,
      endpointId: ep.endpointId,
      messageId: msgId,
      eventId: "inv-1001",
      eventType: "invoice.paid",
      failureClass: "exhausted",
      finalStatus: 503,
      finalError: null,
      state: "open",
      replayCount: 0,
      failedReplays: 0,
      payload: { invoice: 1001, amount: "12.50", note: "ünïcode ✓" },
    });
    expect(record.reason).toMatch(/all 3 attempts failed; last: HTTP 503/);
    expect(record.signatureHeaders).toEqual({
      "webhook-id": sent.headers["webhook-id"],
      "webhook-timestamp": sent.headers["webhook-timestamp"],
      "webhook-signature": sent.headers["webhook-signature"],
    });
    expect(record.attempts.map((a) => [a.trigger, a.status, a.response])).toEqual([
      ["first", 503, "down for maintenance"],
      ["retry", 503, "down for maintenance"],
      ["retry", 503, "down for maintenance"],
    ]);
    for (const a of record.attempts) {
      expect(a.durationMs).toEqual(expect.any(Number));
      expect(Date.parse(String(a.at))).not.toBeNaN();
    }
    expect(record.firstAttemptAt).toBe(record.attempts[0]!.at);
    expect(record.lastAttemptAt).toBe(record.attempts[2]!.at);
    expect(Date.parse(String(record.deadLetteredAt))).toBeGreaterThanOrEqual(
      Date.parse(String(record.lastAttemptAt)),
    );
    expect(record.history).toEqual([
      {
        at: record.deadLetteredAt,
        actor: "hookline",
        action: "dead_lettered",
        result: expect.stringMatching(/^exhausted: all 3 attempts failed/),
        note: null,
        deliveryId: null,
        jobId: null,
      },
    ]);
  });

  it("a refused connection is kept as the final transport error", async () => {
    h = await startHookline();
    rx = await Receiver.start();
    const dead = await Receiver.start();
    const url = dead.url("/gone");
    await dead.close();
    const ep = await anEndpoint(h, url);
    const [record] = await deadLetters(h, ep, 1);
    expect(record).toMatchObject({ failureClass: "exhausted", finalStatus: null });
    expect(record!.finalError).toMatch(/^connection_refused/);
  });

  it("a permanent answer is dead-lettered at once with class permanent", async () => {
    h = await startHookline();
    rx = await Receiver.start(() => ({ status: 422, body: "bad invoice" }));
    const ep = await anEndpoint(h, rx.url("/hooks"), {});
    const [record] = await deadLetters(h, ep, 1, { eventType: "invoice.voided" });
    expect(record).toMatchObject({
      failureClass: "permanent",
      finalStatus: 422,
      eventType: "invoice.voided",
    });
    expect(rx.requests).toHaveLength(1);
  });
});
