/**
 * Cancelling a job lets its replays already in flight finish, and their results are counted on
 * the job afterwards. Counting one stamped the job as last updated when that replay's attempt
 * began, before the cancel: its `updatedAt` went back, to before its own `finishedAt`, and a
 * client that syncs jobs by it would miss the last change.
 */
import { afterEach, describe, expect, it } from "vitest";
import { anEndpoint, deadLetters, untilJob, type JobOut } from "../support/dlq.js";
import { GatedReceiver } from "../support/gated-receiver.js";
import { startHooklineOn, type TestHookline } from "../support/hookline.js";
import { Receiver } from "../support/receiver.js";

type Job = JobOut & { updatedAt: string; finishedAt: string | null };

describe.each(["sqlite", "postgres"] as const)("on %s, a job cancelled mid-replay", (kind) => {
  let h: TestHookline;
  let rx: Receiver;
  let gated: GatedReceiver;
  afterEach(async () => {
    gated.release();
    await h.stop();
    await rx.close();
    await gated.close();
  });

  it("counts the result of a replay in flight without moving updatedAt back", async () => {
    h = await startHooklineOn(kind);
    rx = await Receiver.start(() => ({ status: 503 }));
    gated = await GatedReceiver.start(200);
    const ep = await anEndpoint(h, rx.url("/hooks"));
    await deadLetters(h, ep, 1);
    const path = `/api/v1/app/${ep.appId}/endpoint/${ep.endpointId}`;
    expect((await h.api("PATCH", path, { url: gated.url() })).status).toBe(200);

    const started = await h.api<Job>("POST", "/api/v1/dlq/replay", {
      endpointId: ep.endpointId,
      canarySize: 0,
    });
    await gated.arrived(1);
    const cancelled = await h.api<Job>("POST", `/api/v1/dlq/replay/${started.body.id}/cancel`);
    expect(cancelled.body.progress.outstanding).toBe(1);
    gated.release();
    const job = (await untilJob(h, started.body.id, (j) => j.progress.outstanding === 0)) as Job;
    expect(job).toMatchObject({ state: "cancelled", progress: { succeeded: 1 } });
    expect(Date.parse(job.updatedAt)).toBeGreaterThanOrEqual(Date.parse(job.finishedAt!));
  });
});
