import { Webhook } from "standardwebhooks";
import { afterEach, describe, expect, it } from "vitest";
import { anEndpoint, deadLetters } from "../support/dlq.js";
import { startHookline, type TestHookline } from "../support/hookline.js";
import { Receiver } from "../support/receiver.js";

interface ReplayAnswer {
  result: string;
  detail: string | null;
  deliveryId: string;
  attempt: { trigger: string; status: number; deliveryId: string } | null;
  record: { state: string; replayCount: number; signatureHeaders: Record<string, string> };
}

describe("replaying a record after the receiver recovers", () => {
  let h: TestHookline;
  let rx: Receiver;
  afterEach(async () => {
    await h.stop();
    await rx.close();
  });

  it("sends the same bytes with the same webhook-id, freshly signed, and resolves the record", async () => {
    h = await startHookline();
    rx = await Receiver.start(() => ({ status: 503 }));
    const ep = await anEndpoint(h, rx.url("/hooks"));
    const [record] = await deadLetters(h, ep, 1);
    const original = rx.requests[0]!;

    rx.behave(() => ({ status: 204 }));
    const res = await h.api<ReplayAnswer>("POST", `/api/v1/dlq/${record!.id}/replay`, {
      note: "receiver redeployed",
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      result: "succeeded",
      detail: null,
      attempt: { trigger: "replay", status: 204 },
      record: { state: "resolved", replayCount: 1 },
    });
    expect(res.body.attempt!.deliveryId).toBe(res.body.deliveryId);

    expect(rx.requests).toHaveLength(2);
    const replayed = rx.requests[1]!;
    expect(replayed.body.equals(original.body)).toBe(true);
    expect(replayed.headers["webhook-id"]).toBe(original.headers["webhook-id"]);
    expect(replayed.headers["webhook-id"]).toBe(record!.messageId);
    expect(Number(replayed.headers["webhook-timestamp"])).toBeGreaterThanOrEqual(
      Number(original.headers["webhook-timestamp"]),
    );
    // Verified as a receiver would: the signature is over this request's own timestamp.
    const verified = new Webhook(ep.secret).verify(replayed.body.toString("utf8"), {
      "webhook-id": replayed.headers["webhook-id"]!,
      "webhook-timestamp": replayed.headers["webhook-timestamp"]!,
      "webhook-signature": replayed.headers["webhook-signature"]!,
    });
    expect(verified).toEqual({ n: 0, at: "dead" });

    // The original headers stay on the record; the replay is one more of its attempts.
    const whole = await h.api<{
      signatureHeaders: Record<string, string>;
      attempts: { trigger: string; status: number }[];
      history: { action: string; actor: string; note: string | null; result: string }[];
    }>("GET", `/api/v1/dlq/${record!.id}`);
    expect(whole.body.signatureHeaders["webhook-timestamp"]).toBe(
      original.headers["webhook-timestamp"],
    );
    expect(whole.body.signatureHeaders["webhook-signature"]).toBe(
      original.headers["webhook-signature"],
    );
    expect(whole.body.attempts.map((a) => [a.trigger, a.status])).toEqual([
      ["first", 503],
      ["replay", 204],
    ]);
    expect(whole.body.history.slice(1)).toEqual([
      expect.objectContaining({
        action: "replay_requested",
        actor: "admin",
        note: "receiver redeployed",
        result: "queued",
      }),
      expect.objectContaining({
        action: "replayed",
        actor: "admin",
        result: expect.stringMatching(/^succeeded: HTTP 204 in \d+ ms$/),
      }),
    ]);

    // The Svix attempt log shows it too, as a manual-kind attempt.
    const attempts = await h.svix.messageAttempt.listByMsg(ep.appId, record!.messageId);
    expect(attempts.data.map((a) => a.triggerType)).toEqual([1, 0]);
  });

  it("a resolved record may be replayed again; the record is never deleted by a replay", async () => {
    h = await startHookline();
    rx = await Receiver.start(() => ({ status: 503 }));
    const ep = await anEndpoint(h, rx.url("/hooks"));
    const [record] = await deadLetters(h, ep, 1);
    rx.behave(() => ({ status: 200 }));
    for (let i = 1; i <= 2; i++) {
      const res = await h.api<ReplayAnswer>("POST", `/api/v1/dlq/${record!.id}/replay`);
      expect(res.status).toBe(200);
      expect(res.body.record).toMatchObject({ state: "resolved", replayCount: i });
    }
    expect((await h.api("GET", `/api/v1/dlq/${record!.id}`)).status).toBe(200);
    expect(rx.requests).toHaveLength(3);
  });
});
