/**
 * A single replay's answer waits for the attempt's outcome, so it was kept on its idempotency key
 * only after the replay was queued, in a write of its own. When that write failed, the key stayed
 * "in progress" for its 60 s lock, and the client's retry after it replayed the record a second
 * time: the receiver got the event once more. The replay now keeps a "queued" answer on the key
 * in the transaction that queues it (replaced by the outcome as the answer is sent): a retry is
 * answered for that replay and queues none. A database that refuses the answer fails the replay
 * whole (500, nothing queued, the key freed), and the retry replays the record once.
 */
import { afterEach, describe, expect, it, vi } from "vitest";
import { join } from "node:path";
import { systemClock, type Clock } from "../../src/clock.js";
import { acceptAnswersAgain, refuseAnswers } from "../support/answers-not-kept.js";
import { anEndpoint, deadLetters, PATIENT_BREAKER, type RecordOut } from "../support/dlq.js";
import { startHooklineOn, type TestHookline } from "../support/hookline.js";
import { Receiver } from "../support/receiver.js";

/** The wall clock, which a test can move forward past a key's lock; timers run as Node's do. */
function forwardClock(): Clock & { forward(ms: number): void } {
  let offset = 0;
  return {
    now: () => Date.now() + offset,
    setTimer: (fn, ms) => systemClock.setTimer(fn, ms),
    clearTimer: (handle) => systemClock.clearTimer(handle),
    forward(ms) {
      offset += ms;
    },
  };
}

interface ReplayOut {
  deadLetterId: string;
  deliveryId: string;
  result: string;
  detail: string | null;
  record: RecordOut;
}

describe.each(["sqlite", "postgres"] as const)("a keyed single replay on %s", (kind) => {
  let h: TestHookline;
  let rx: Receiver;
  let clock: ReturnType<typeof forwardClock>;
  let record: RecordOut;
  afterEach(async () => {
    vi.restoreAllMocks();
    await h.stop();
    await rx.close();
  });

  async function aRecord() {
    clock = forwardClock();
    h = await startHooklineOn(kind, {}, { clock, breaker: PATIENT_BREAKER });
    rx = await Receiver.start(() => ({ status: 500 }));
    const ep = await anEndpoint(h, rx.url("/hooks"));
    [record] = (await deadLetters(h, ep, 1)) as [RecordOut];
    // The receiver is fixed: a replay now succeeds.
    rx.behave(() => ({ status: 200 }));
  }

  const replay = () =>
    fetch(`${h.url}/api/v1/dlq/${record.id}/replay`, {
      method: "POST",
      headers: {
        authorization: `Bearer ${h.token}`,
        "content-type": "application/json",
        "idempotency-key": "replay-once",
      },
      body: "{}",
    });

  /** The record's replays as its history and the store tell them, and the receiver's requests. */
  async function replays() {
    const whole = await h.api<{ history: { action: string }[] }>("GET", `/api/v1/dlq/${record.id}`);
    const deliveries = await h.hookline.store.listDeliveries(record.messageId);
    return {
      requested: whole.body.history.filter((e) => e.action === "replay_requested").length,
      deliveries: deliveries.filter((d) => d.origin === "replay").length,
      sent: rx.on("/hooks").length,
    };
  }

  it(
    "whose answer could not be kept is answered for that replay past the key's lock, and queues none",
    { timeout: 30_000 },
    async () => {
      await aRecord();
      vi.spyOn(h.hookline.store, "finishIdempotent").mockRejectedValue(
        new Error("the answer could not be written"),
      );
      const first = await replay();
      expect(first.status).toBe(200);
      const answered = (await first.json()) as ReplayOut;
      expect(answered.result).toBe("succeeded");
      vi.restoreAllMocks();

      clock.forward(61_000);
      const retry = await replay();
      expect(retry.headers.get("idempotent-replayed")).toBe("true");
      expect(retry.status).toBe(202);
      const again = (await retry.json()) as ReplayOut;
      expect(again).toMatchObject({
        deadLetterId: record.id,
        deliveryId: answered.deliveryId,
        result: "queued",
      });
      expect(again.detail).toContain("the record tells its outcome");
      // One original attempt and one replay.
      expect(await replays()).toEqual({ requested: 1, deliveries: 1, sent: 2 });
    },
  );

  it("whose answer the database refuses fails whole, and the retry replays once", async () => {
    await aRecord();
    const db =
      kind === "sqlite"
        ? { kind, path: join(h.dataDir, "hookline.db") }
        : { kind, schema: h.hookline.config.pgSchema };
    await refuseAnswers(db);
    const refused = await replay();
    expect(refused.status).toBe(500);
    expect(await replays()).toEqual({ requested: 0, deliveries: 0, sent: 1 });
    const open = await h.api<RecordOut>("GET", `/api/v1/dlq/${record.id}`);
    expect(open.body.state).toBe("open");

    await acceptAnswersAgain(db);
    const retry = await replay();
    expect(retry.status).toBe(200);
    expect(retry.headers.get("idempotent-replayed")).toBeNull();
    const answered = await retry.text();
    const again = await replay();
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    expect(await again.text()).toBe(answered);
    expect(await replays()).toEqual({ requested: 1, deliveries: 1, sent: 2 });
  });
});
