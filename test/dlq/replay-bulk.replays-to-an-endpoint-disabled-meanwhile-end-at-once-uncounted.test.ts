/**
 * Replays queued behind an endpoint's open circuit wait for its probe, up to an hour off. Once the
 * endpoint is disabled nothing will be sent to it: they end then, unsent, and an unsent replay
 * says nothing of the receiver, so it is no failure of its record, nor of a job's canary.
 */
import { afterEach, describe, expect, it } from "vitest";
import { anEndpoint, deadLetters, dlqChange, untilJob, type JobOut } from "../support/dlq.js";
import { FakeClock } from "../support/fake-clock.js";
import { startHookline, type TestHookline } from "../support/hookline.js";
import { Receiver } from "../support/receiver.js";

type RecordOut = {
  state: string;
  failedReplays: number;
  history: { action: string; result: string | null }[];
};

describe("replays to an endpoint disabled while they wait behind its open circuit", () => {
  let h: TestHookline;
  let rx: Receiver;
  afterEach(async () => {
    await h.stop();
    await rx.close();
  });

  it("end when it is disabled, and count as no failure", async () => {
    const clock = new FakeClock();
    // The circuit opens at the sixth failure, once every record is made: at three, posts that
    // came slowly (a loaded machine) found it open and waited for its probe an hour off, never dead.
    h = await startHookline({
      overrides: { clock, breaker: { consecutiveFailures: 6, probeDelayMs: 60 * 60_000 } },
    });
    rx = await Receiver.start(() => ({ status: 503 }));
    const ep = await anEndpoint(h, rx.url("/hooks"));
    const [single, ...rest] = await deadLetters(h, ep, 6);
    await h.waitFor((e) => e.type === "circuit" && e.transition.to === "open");

    const queued = await h.api("POST", `/api/v1/dlq/${single!.id}/replay`, {});
    expect(queued.status).toBe(202);
    const started = await h.api<JobOut>("POST", "/api/v1/dlq/replay", {
      ids: rest.map((r) => r.id),
      ratePerSecond: 5,
      canarySize: 3,
    });
    // The rate's tokens come with the clock; the probe stays an hour off.
    for (let n = 1; n <= 3; n++) {
      await untilJob(h, started.body.id, (j) => j.progress.queued === n);
      if (n < 3) clock.advance(1_000);
    }

    const path = `/api/v1/app/${ep.appId}/endpoint/${ep.endpointId}`;
    expect((await h.api("PATCH", path, { disabled: true })).status).toBe(200);

    // At once, though the probe is an hour off: the canary's replays ended, none of them a result.
    await untilJob(h, started.body.id, (j) => j.progress.withdrawn === 3);
    clock.advance(1_000);
    const job = await untilJob(h, started.body.id, (j) => j.state !== "running");
    expect(job.progress).toMatchObject({ succeeded: 0, failed: 0, withdrawn: 3, skipped: 2 });
    expect(job.state).toBe("completed");
    await h.waitFor(dlqChange("replay_withdrawn", single!.id));
    const record = (await h.api<RecordOut>("GET", `/api/v1/dlq/${single!.id}`)).body;
    expect(record).toMatchObject({ state: "open", failedReplays: 0 });
    expect(record.history.at(-1)).toMatchObject({
      action: "replay_withdrawn",
      result: "no request was sent: endpoint disabled",
    });
    // The job's three replays too: withdrawn in their records' history, as in its progress.
    const ends: string[] = [];
    for (const r of rest) {
      const { history } = (await h.api<RecordOut>("GET", `/api/v1/dlq/${r.id}`)).body;
      for (const e of history) if (e.action.startsWith("replay")) ends.push(e.action);
    }
    expect(ends.filter((a) => a !== "replay_requested")).toEqual([
      "replay_withdrawn",
      "replay_withdrawn",
      "replay_withdrawn",
    ]);
    expect(rx.requests).toHaveLength(6);
  });
});
