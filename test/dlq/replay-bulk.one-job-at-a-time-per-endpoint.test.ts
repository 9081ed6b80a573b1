/**
 * Each bulk replay keeps to its own rate; two at once on one endpoint would send it the sum of
 * both, more than the person who asked for either meant it to take. A second job that may replay
 * to an endpoint a scheduled or running job replays to is refused with 409, naming that job.
 */
import { afterEach, describe, expect, it } from "vitest";
import { anEndpoint, deadLetters, PATIENT_BREAKER, untilJob, type JobOut } from "../support/dlq.js";
import { startHookline, type TestHookline } from "../support/hookline.js";
import { Receiver } from "../support/receiver.js";

describe("one bulk replay job at a time per endpoint", () => {
  let h: TestHookline;
  let rx: Receiver;
  afterEach(async () => {
    await h.stop();
    await rx.close();
  });

  it("refuses a second job on an endpoint with 409 naming the first, until it ends", async () => {
    h = await startHookline({ overrides: { breaker: PATIENT_BREAKER } });
    rx = await Receiver.start(() => ({ status: 503 }));
    const ep = await anEndpoint(h, rx.url("/hooks"));
    const other = await anEndpoint(h, rx.url("/other"));
    const records = await deadLetters(h, ep, 4);
    await deadLetters(h, other, 2);
    rx.behave(() => ({ status: 200 }));
    const start = (body: Record<string, unknown>) =>
      h.api<JobOut & { code: string; detail: string }>("POST", "/api/v1/dlq/replay", body);

    const running = await start({ endpointId: ep.endpointId, ratePerSecond: 0.01, canarySize: 0 });
    expect(running.status).toBe(202);
    await untilJob(h, running.body.id, (j) => j.progress.queued === 1);

    const busy =
      `replay job ${running.body.id} is running on endpoint ${ep.endpointId}: one bulk replay ` +
      `at a time per endpoint, so that their rates do not add up; wait for it to end, or cancel it`;
    for (const body of [
      { endpointId: ep.endpointId },
      { appId: ep.appId },
      { ids: [records[3]!.id] },
      { eventType: "invoice.failed" },
    ]) {
      expect(await start(body)).toEqual({ status: 409, body: { code: "conflict", detail: busy } });
    }
    const recover = await h.api<{ detail: string }>(
      "POST",
      `/api/v1/app/${ep.appId}/endpoint/${ep.endpointId}/recover`,
      { since: new Date(0).toISOString() },
    );
    expect(recover).toEqual({ status: 409, body: { code: "conflict", detail: busy } });

    // Another endpoint is free.
    const elsewhere = await start({ endpointId: other.endpointId, canarySize: 0 });
    expect(elsewhere.status).toBe(202);
    await untilJob(h, elsewhere.body.id, (j) => j.state === "completed");

    await h.api("POST", `/api/v1/dlq/replay/${running.body.id}/cancel`);
    const after = await start({ endpointId: ep.endpointId, canarySize: 0, ratePerSecond: 100 });
    expect(after.status).toBe(202);
    const done = await untilJob(h, after.body.id, (j) => j.state === "completed");
    expect(done.progress).toMatchObject({ total: 3, succeeded: 3 });
  });
});
