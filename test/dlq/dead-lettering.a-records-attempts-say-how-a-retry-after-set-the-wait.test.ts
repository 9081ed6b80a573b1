/**
 * An attempt from the attempts API says how its answer's Retry-After set the wait before the next
 * attempt (`retryAfter`), but the same attempt in its dead-letter record did not: an operator
 * reading a record whose first retry came 2 min (or 4 h) after its first attempt, not at the
 * ladder's 5 s, had nothing saying the receiver asked for it. A record's attempts are the
 * attempts table's rows, so each now carries the same `retryAfter`, on both stores; a replay's
 * answer, whose attempt is never retried, has it null.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { recordsAfterARetryAfter, askingOnceThenRefusing, type RecordOut } from "../support/dlq.js";
import { startHooklineOn, type TestHookline } from "../support/hookline.js";
import { Receiver } from "../support/receiver.js";

interface RecordAttempt {
  trigger: string;
  status: number | null;
  retryAfter?: { askedSeconds: number; waitSeconds: number } | null;
}

describe.each(["sqlite", "postgres"] as const)("on %s", (kind) => {
  let h: TestHookline;
  let rx: Receiver;
  let records: Record<string, RecordOut>;

  beforeAll(async () => {
    h = await startHooklineOn(kind);
    rx = await Receiver.start(askingOnceThenRefusing({ "/capped": String(6 * 3600) }));
    ({ records } = await recordsAfterARetryAfter(h, (p) => rx.url(p), ["/asked", "/capped"]));
  });
  afterAll(async () => {
    await h?.stop();
    await rx?.close();
  });

  it("gives each attempt of a record the wait its Retry-After asked for and the one kept", async () => {
    const attemptsOf = async (path: string) => {
      const got = await h.api<{ attempts: RecordAttempt[] }>(
        "GET",
        `/api/v1/dlq/${records[path]!.id}`,
      );
      expect(got.status).toBe(200);
      return got.body.attempts.map((a) => [a.trigger, a.status, a.retryAfter]);
    };
    expect(await attemptsOf("/asked")).toEqual([
      ["first", 503, { askedSeconds: 120, waitSeconds: 120 }],
      ["retry", 400, null],
    ]);
    expect(await attemptsOf("/capped")).toEqual([
      ["first", 503, { askedSeconds: 6 * 3600, waitSeconds: 4 * 3600 }],
      ["retry", 400, null],
    ]);
  });

  it("gives a replay's attempt none: a replay is never retried", async () => {
    const replay = await h.api<{ attempt: RecordAttempt | null }>(
      "POST",
      `/api/v1/dlq/${records["/asked"]!.id}/replay`,
      {},
    );
    expect(replay.status).toBe(200);
    expect(replay.body.attempt).toMatchObject({ trigger: "replay", status: 400, retryAfter: null });
  });
});
