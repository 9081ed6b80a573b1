/**
 * A canary that passed vouches for the receiver as it was then. Should the receiver fail again
 * while the rest is replayed, its circuit opens and every further replay waits for a probe, up to
 * an hour apart, one replay each: the job would run for days. It stops instead, and takes back
 * the replays it queued that were not sent.
 */
import { afterEach, describe, expect, it } from "vitest";
import { aReplayItsReceiverFailsAgain, type RecordOut } from "../support/dlq.js";
import { startHookline, type TestHookline } from "../support/hookline.js";
import { Receiver } from "../support/receiver.js";

describe("a bulk replay whose receiver fails again after the canary", () => {
  let h: TestHookline;
  let rx: Receiver;
  afterEach(async () => {
    await h.stop();
    await rx.close();
  });

  it("stops, says why, and withdraws the replays its endpoint's circuit holds", async () => {
    h = await startHookline({
      overrides: { breaker: { consecutiveFailures: 3, probeDelayMs: 3_600_000 } },
    });
    rx = await Receiver.start();
    const { ep, job } = await aReplayItsReceiverFailsAgain(h, rx);
    expect(job.state).toBe("stopped");
    expect(job.reason).toMatch(
      new RegExp(
        `^the receiver failed again after the canary passed: the circuit of endpoint ` +
          `${ep.endpointId} opened at \\S+; replays not yet sent are withdrawn, and the ` +
          `other \\d+ selected records were not replayed$`,
      ),
    );
    const p = job.progress;
    expect(p.succeeded).toBe(3);
    expect(p.withdrawn).toBeGreaterThan(0);
    expect(p.succeeded + p.failed + p.withdrawn + (p.waiting ?? 0)).toBe(20);

    const records = (
      await h.api<{ data: RecordOut[] }>("GET", `/api/v1/dlq?endpoint_id=${ep.endpointId}`)
    ).body.data;
    expect(records.filter((r) => r.state === "resolved")).toHaveLength(3);
    expect(records.filter((r) => r.state === "open")).toHaveLength(17);
    // Each withdrawn replay says so last in its record's history, whichever records they were
    // (a record the job never queued has no replay in its history at all).
    type History = { history: { action: string; actor: string; result: string }[] };
    const lasts = [];
    for (const r of records.filter((r) => r.state === "open" && r.replayCount === 0)) {
      lasts.push((await h.api<History>("GET", `/api/v1/dlq/${r.id}`)).body.history.at(-1));
    }
    const withdrawals = lasts.filter((e) => e?.action === "replay_withdrawn");
    expect(withdrawals).toHaveLength(p.withdrawn);
    for (const e of withdrawals) {
      expect(e).toMatchObject({
        actor: "hookline",
        result: "withdrawn before it was sent: the job stopped",
      });
    }
  });
});
