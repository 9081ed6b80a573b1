/**
 * A bulk replay (or Svix's recover) naming one endpoint that is disabled would skip every record
 * and end "completed" having sent nothing, which reads as success. It is refused with 409 saying
 * why, as a single replay to that endpoint is; once the endpoint is enabled the job runs.
 */
import { ApiException } from "svix";
import { afterEach, describe, expect, it } from "vitest";
import { anEndpoint, deadLetters, untilJob, type JobOut } from "../support/dlq.js";
import { startHookline, type TestHookline } from "../support/hookline.js";
import { Receiver } from "../support/receiver.js";

describe("a bulk replay of a disabled endpoint", () => {
  let h: TestHookline;
  let rx: Receiver;
  afterEach(async () => {
    await h.stop();
    await rx.close();
  });

  it("is refused with 409 naming the endpoint and why, and makes no job", async () => {
    h = await startHookline();
    rx = await Receiver.start(() => ({ status: 503 }));
    const ep = await anEndpoint(h, rx.url("/hooks"));
    await deadLetters(h, ep, 2);
    const path = `/api/v1/app/${ep.appId}/endpoint/${ep.endpointId}`;
    expect((await h.api("PATCH", path, { disabled: true })).status).toBe(200);
    const refusal = {
      code: "conflict",
      detail: `endpoint ${ep.endpointId} is disabled; enable it before replaying`,
    };

    const bulk = await h.api("POST", "/api/v1/dlq/replay", {
      endpointId: ep.endpointId,
      canarySize: 0,
    });
    expect(bulk).toEqual({ status: 409, body: refusal });
    const err = await h.svix.endpoint
      .recover(ep.appId, ep.endpointId, { since: new Date(0) })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiException);
    expect((err as ApiException<unknown>).code).toBe(409);
    expect((err as ApiException<unknown>).body).toEqual(refusal);
    const jobs = await h.api<{ data: JobOut[] }>("GET", "/api/v1/dlq/replay");
    expect(jobs.body.data).toEqual([]);

    rx.behave(() => ({ status: 200 }));
    expect((await h.api("PATCH", path, { disabled: false })).status).toBe(200);
    const job = await h.api<JobOut>("POST", "/api/v1/dlq/replay", {
      endpointId: ep.endpointId,
      canarySize: 0,
    });
    expect(job.status).toBe(202);
    const done = await untilJob(h, job.body.id, (j) => j.state === "completed");
    expect(done.progress).toMatchObject({ total: 2, succeeded: 2, skipped: 0 });
  });

  it("disabled by a 410 says so", async () => {
    h = await startHookline();
    rx = await Receiver.start(() => ({ status: 503 }));
    const ep = await anEndpoint(h, rx.url("/hooks"));
    const [record] = await deadLetters(h, ep, 1);
    rx.behave(() => ({ status: 410 }));
    expect((await h.api("POST", `/api/v1/dlq/${record!.id}/replay`)).status).toBe(200);

    const bulk = await h.api("POST", "/api/v1/dlq/replay", { endpointId: ep.endpointId });
    expect(bulk).toEqual({
      status: 409,
      body: {
        code: "conflict",
        detail:
          `endpoint ${ep.endpointId} is disabled (the receiver answered 410 Gone); ` +
          "enable it before replaying",
      },
    });
  });
});
