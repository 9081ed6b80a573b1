/**
 * A single replay that ends without its request going out says why in its `detail`. Its endpoint
 * disabled after the replay was queued, there is no attempt at all: it answers `withdrawn`, as the
 * record's history and the metrics say, since it tells nothing of the receiver. The SSRF guard
 * refusing the endpoint's address answers `failed`: an attempt is recorded (no connection was
 * made), and it counts as a failed replay of the record.
 * (One deleted meanwhile answers 404: replay.a-deleted-endpoint-ends-the-wait-at-once.)
 */
import { afterEach, describe, expect, it } from "vitest";
import { anEndpoint, deadLetters, PATIENT_BREAKER, type RecordOut } from "../support/dlq.js";
import { aReplayBehindAHeldRequest } from "../support/held-replay.js";
import { startHookline } from "../support/hookline.js";
import { Receiver } from "../support/receiver.js";

type ReplayAnswer = {
  result: string;
  detail: string | null;
  attempt: { error: string | null } | null;
  record: RecordOut;
};

describe("a single replay that sends nothing says why", () => {
  const cleanups: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const c of cleanups.splice(0).reverse()) await c();
  });

  it("its endpoint disabled (a 410) while the replay waited behind a request in flight", async () => {
    const { h, rx, record, answer } = await aReplayBehindAHeldRequest<ReplayAnswer>(cleanups);
    const before = rx.received;
    rx.answerHeld(410);

    const res = await answer;
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      result: "withdrawn",
      attempt: null,
      detail: "no request was sent: endpoint disabled: the receiver answered 410 Gone",
      // Nothing reached the receiver: the record reopens, and the failure does not count.
      record: { state: "open", replayCount: 1, failedReplays: 0 },
    });
    expect(rx.received).toBe(before);
    const whole = await h.api<{ history: { action: string; result: string }[] }>(
      "GET",
      `/api/v1/dlq/${record.id}`,
    );
    // Withdrawn in the record's history, as the metrics count it; the detail is read from there.
    expect(whole.body.history.at(-1)).toMatchObject({
      action: "replay_withdrawn",
      result: res.body.detail,
    });
  });

  it("its endpoint's address refused by the SSRF guard", async () => {
    const rx = await Receiver.start(() => ({ status: 503 }));
    cleanups.push(() => rx.close());
    const first = await startHookline({ overrides: { breaker: PATIENT_BREAKER } });
    const ep = await anEndpoint(first, rx.url("/hooks"));
    const [record] = await deadLetters(first, ep, 1);
    await first.stop(true);
    // The same data, served with private targets refused: the loopback receiver is one.
    const h = await startHookline({
      dataDir: first.dataDir,
      env: { HOOKLINE_ALLOW_PRIVATE_TARGETS: "0" },
      overrides: { breaker: PATIENT_BREAKER },
    });
    cleanups.push(() => h.stop());
    rx.behave(() => ({ status: 200 }));

    const res = await h.api<ReplayAnswer>("POST", `/api/v1/dlq/${record!.id}/replay`, {});
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      result: "failed",
      attempt: { error: "refused_target" },
      detail:
        "no request was sent: refused to connect to 127.0.0.1: loopback addresses are not " +
        "allowed (HOOKLINE_ALLOW_PRIVATE_TARGETS)",
    });
    expect(rx.requests).toHaveLength(1);
  });
});
