/**
 * A receiver answering 429 is pacing hookline, not refusing the message: the circuit breaker does
 * not count it as a failure, and it cannot be made permanent. A replay answered so has failed
 * (the record reopens, a job counts it failed), but it does not bring the record nearer to being
 * abandoned: an operator replaying a record while its receiver asks to wait must not lose the
 * record for good.
 */
import { afterEach, describe, expect, it } from "vitest";
import { anEndpoint, deadLetters } from "../support/dlq.js";
import { startHooklineOn, type TestHookline } from "../support/hookline.js";
import { Receiver } from "../support/receiver.js";

describe.each(["sqlite", "postgres"] as const)("on %s, replays answered 429", (kind) => {
  let h: TestHookline;
  let rx: Receiver;
  afterEach(async () => {
    await h.stop();
    await rx.close();
  });

  it("leave the record open, its count of failed replays where it was", async () => {
    h = await startHooklineOn(kind, { HOOKLINE_DLQ_MAX_REPLAYS: "2" });
    rx = await Receiver.start(() => ({ status: 503 }));
    const ep = await anEndpoint(h, rx.url("/hooks"));
    const [record] = await deadLetters(h, ep, 1);
    const replay = () =>
      h.api<{
        result: string;
        attempt: { status: number } | null;
        record: { state: string; failedReplays: number; replayCount: number };
      }>("POST", `/api/v1/dlq/${record!.id}/replay`);

    rx.behave(() => ({ status: 503 }));
    expect((await replay()).body).toMatchObject({
      result: "failed",
      record: { state: "open", failedReplays: 1 },
    });
    rx.behave(() => ({ status: 429, headers: { "retry-after": "30" } }));
    for (let i = 2; i <= 4; i++) {
      expect((await replay()).body).toMatchObject({
        result: "failed",
        attempt: { status: 429 },
        record: { state: "open", failedReplays: 1, replayCount: i },
      });
    }
    // Once the receiver takes it, the replay goes through.
    rx.behave(() => ({ status: 200 }));
    expect((await replay()).body).toMatchObject({
      result: "succeeded",
      record: { state: "resolved", failedReplays: 0 },
    });
  });
});
