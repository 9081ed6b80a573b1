import { afterEach, describe, expect, it } from "vitest";
import {
  anEndpoint,
  deadLetters,
  PATIENT_BREAKER,
  untilJob,
  type JobOut,
  type RecordOut,
} from "../support/dlq.js";
import { FakeClock } from "../support/fake-clock.js";
import { startHookline, type TestHookline } from "../support/hookline.js";
import { Receiver } from "../support/receiver.js";

describe("bulk replay jobs: scheduled, cancelled, and run more than once", () => {
  let h: TestHookline;
  let rx: Receiver;
  afterEach(async () => {
    await h.stop();
    await rx.close();
  });

  const startJob = (body: Record<string, unknown>) =>
    h.api<JobOut>("POST", "/api/v1/dlq/replay", body);
  const webhookIds = (from: number) => rx.requests.slice(from).map((r) => r.headers["webhook-id"]);

  it("a scheduled job waits for its start time; a cancelled scheduled job never runs", async () => {
    const clock = new FakeClock();
    h = await startHookline({ overrides: { clock } });
    rx = await Receiver.start(() => ({ status: 404 }));
    const ep = await anEndpoint(h, rx.url("/hooks"), {});
    await deadLetters(h, ep, 2);
    rx.behave(() => ({ status: 200 }));
    const inAnHour = new Date(clock.now() + 3_600_000).toISOString();
    const never = await startJob({ endpointId: ep.endpointId, startAt: inAnHour });
    const cancelled = await h.api<JobOut>("POST", `/api/v1/dlq/replay/${never.body.id}/cancel`);
    expect(cancelled.body).toMatchObject({ state: "cancelled", reason: "cancelled by admin" });
    // One job at a time per endpoint: the cancelled one no longer holds it.
    const job = await startJob({
      endpointId: ep.endpointId,
      startAt: inAnHour,
      canarySize: 0,
      ratePerSecond: 1,
    });
    expect(job.body).toMatchObject({ state: "scheduled", startAt: inAnHour });

    clock.advance(3_600_000 - 1);
    expect((await h.api<JobOut>("GET", `/api/v1/dlq/replay/${job.body.id}`)).body.state).toBe(
      "scheduled",
    );
    expect(rx.requests).toHaveLength(2);

    clock.advance(1);
    await untilJob(h, job.body.id, (j) => j.progress.succeeded === 1);
    clock.advance(1000);
    const done = await untilJob(h, job.body.id, (j) => j.state === "completed");
    expect(done.progress).toMatchObject({ total: 2, succeeded: 2 });
    const stillCancelled = await h.api<JobOut>("GET", `/api/v1/dlq/replay/${never.body.id}`);
    expect(stillCancelled.body).toMatchObject({ state: "cancelled", progress: { total: null } });
    expect(rx.requests).toHaveLength(4);
  });

  it("cancelling a running job stops it: the records not yet replayed stay open", async () => {
    h = await startHookline({ overrides: { breaker: PATIENT_BREAKER } });
    rx = await Receiver.start(() => ({ status: 503 }));
    const ep = await anEndpoint(h, rx.url("/hooks"));
    await deadLetters(h, ep, 6);
    rx.behave(() => ({ status: 200 }));
    const before = rx.requests.length;
    const job = await startJob({ endpointId: ep.endpointId, ratePerSecond: 2, canarySize: 0 });
    await untilJob(h, job.body.id, (j) => j.progress.succeeded >= 1);
    const cancelled = await h.api<JobOut>("POST", `/api/v1/dlq/replay/${job.body.id}/cancel`);
    expect(cancelled.status).toBe(200);
    expect(cancelled.body.state).toBe("cancelled");
    // Nothing is queued after the cancel is committed; what was queued finishes or is withdrawn.
    const queued = cancelled.body.progress.queued;
    const settled = await untilJob(h, job.body.id, (j) => j.progress.outstanding === 0);
    expect(settled.progress.queued).toBe(queued);
    const replayed = queued - settled.progress.withdrawn;
    expect(rx.requests.length - before).toBe(replayed);
    expect(replayed).toBeLessThan(6);
    const records = await h.api<{ data: RecordOut[] }>(
      "GET",
      `/api/v1/dlq?endpoint_id=${ep.endpointId}&state=open`,
    );
    expect(records.body.data).toHaveLength(6 - replayed);
    expect(records.body.data.every((r) => r.replayCount === 0)).toBe(true);
  });

  it("replays each record once per job: listed twice, asked twice, or run again after a restart", async () => {
    h = await startHookline({ overrides: { breaker: PATIENT_BREAKER } });
    rx = await Receiver.start(() => ({ status: 503 }));
    const ep = await anEndpoint(h, rx.url("/hooks"));
    const records = await deadLetters(h, ep, 8);
    rx.behave(() => ({ status: 200 }));

    // The same record listed twice is one item of the job.
    const [a, b, c] = records.map((r) => r.id);
    let from = rx.requests.length;
    const listed = await startJob({ ids: [a, b, a, c, b], canarySize: 0, ratePerSecond: 100 });
    const done = await untilJob(h, listed.body.id, (j) => j.state === "completed");
    expect(done.progress).toMatchObject({ total: 3, succeeded: 3 });
    expect(webhookIds(from).sort()).toEqual(
      records
        .slice(0, 3)
        .map((r) => r.messageId)
        .sort(),
    );

    // The same request again with its idempotency key answers the same job, not a new one.
    const ask = () =>
      fetch(`${h.url}/api/v1/dlq/replay`, {
        method: "POST",
        headers: {
          authorization: `Bearer ${h.token}`,
          "content-type": "application/json",
          "idempotency-key": "after-outage-42",
        },
        body: JSON.stringify({ endpointId: ep.endpointId, canarySize: 0, ratePerSecond: 4 }),
      }).then(async (r) => (await r.json()) as JobOut);
    from = rx.requests.length;
    const first = await ask();
    expect((await ask()).id).toBe(first.id);

    // Stopped half-way and started again on the same data: it carries on where it was.
    await untilJob(h, first.id, (j) => j.progress.succeeded >= 2);
    await h.stop(true);
    h = await startHookline({ dataDir: h.dataDir, overrides: { breaker: PATIENT_BREAKER } });
    const resumed = await untilJob(h, first.id, (j) => j.state === "completed");
    expect(resumed.progress).toMatchObject({ total: 5, succeeded: 5, skipped: 0 });
    const replayed = webhookIds(from);
    expect(replayed.sort()).toEqual(
      records
        .slice(3)
        .map((r) => r.messageId)
        .sort(),
    );
  });
});
