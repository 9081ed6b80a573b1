import { Webhook } from "standardwebhooks";
import { afterEach, describe, expect, it } from "vitest";
import { anEndpoint, deadLetters, PATIENT_BREAKER, untilJob, type JobOut } from "../support/dlq.js";
import { FakeClock } from "../support/fake-clock.js";
import { startHookline, type TestHookline } from "../support/hookline.js";
import { Receiver } from "../support/receiver.js";

describe("a bulk replay goes through the endpoint's limit and its own rate", () => {
  let h: TestHookline;
  let rx: Receiver;
  afterEach(async () => {
    await h.stop();
    await rx.close();
  });

  /** Replays only: requests after the first `n` (the original attempts). */
  const replaysAfter = (n: number) => rx.requests.slice(n);

  it("never more requests in flight than the endpoint's concurrency limit; each replay verifies", async () => {
    h = await startHookline({ overrides: { breaker: PATIENT_BREAKER } });
    rx = await Receiver.start(() => ({ status: 503 }));
    const ep = await anEndpoint(h, rx.url("/hooks"), {
      retry: { preset: "manual" },
      concurrencyLimit: 2,
    });
    const records = await deadLetters(h, ep, 12);
    rx.behave(() => ({ status: 200, delayMs: 60 }));
    const before = rx.requests.length;
    const started = await h.api<JobOut>("POST", "/api/v1/dlq/replay", {
      endpointId: ep.endpointId,
      ratePerSecond: 1000,
      canarySize: 0,
    });
    expect(started.status).toBe(202);
    const job = await untilJob(h, started.body.id, (j) => j.state === "completed");
    expect(job.progress).toMatchObject({ total: 12, queued: 12, succeeded: 12, failed: 0 });
    const replays = replaysAfter(before);
    expect(replays).toHaveLength(12);
    expect(new Set(replays.map((r) => r.headers["webhook-id"])).size).toBe(12);
    expect(rx.maxConcurrentOn("/hooks")).toBeLessThanOrEqual(2);
    // Each is the original's bytes and webhook-id, signed afresh, as a receiver verifies it.
    const originals = new Map(
      rx.requests.slice(0, before).map((r) => [r.headers["webhook-id"], r]),
    );
    const webhook = new Webhook(ep.secret);
    for (const r of replays) {
      expect(r.body.equals(originals.get(r.headers["webhook-id"])!.body)).toBe(true);
      webhook.verify(r.body.toString("utf8"), {
        "webhook-id": r.headers["webhook-id"]!,
        "webhook-timestamp": r.headers["webhook-timestamp"]!,
        "webhook-signature": r.headers["webhook-signature"]!,
      });
    }
    const listed = await h.api<{ data: { state: string }[] }>(
      "GET",
      `/api/v1/dlq?endpoint_id=${ep.endpointId}`,
    );
    expect(listed.body.data.map((r) => r.state)).toEqual(records.map(() => "resolved"));
  });

  it("spreads replays at the job's rate, as the receiver measures it", async () => {
    h = await startHookline({ overrides: { breaker: PATIENT_BREAKER } });
    rx = await Receiver.start(() => ({ status: 503 }));
    const ep = await anEndpoint(h, rx.url("/hooks"));
    await deadLetters(h, ep, 11);
    rx.behave(() => ({ status: 200 }));
    const before = rx.requests.length;
    const asked = Date.now();
    const started = await h.api<JobOut>("POST", "/api/v1/dlq/replay", {
      endpointId: ep.endpointId,
      ratePerSecond: 10,
      canarySize: 0,
    });
    await untilJob(h, started.body.id, (j) => j.state === "completed");
    const times = replaysAfter(before).map((r) => r.at);
    expect(times).toHaveLength(11);
    // At 10 a second, eleven replays take at least a second from the job's start, which is after
    // it was asked for; slowness only adds to that. Counted from the ask, not from the first
    // replay's arrival: on a busy machine (the suite runs two files at once) that arrival alone
    // can be late, which made the replays look closer together than they were sent.
    expect(times.at(-1)! - asked).toBeGreaterThanOrEqual(900);
  });

  it("on the job's clock: one replay per token, none before its time", async () => {
    const clock = new FakeClock();
    h = await startHookline({ overrides: { clock, breaker: PATIENT_BREAKER } });
    rx = await Receiver.start(() => ({ status: 404 }));
    const ep = await anEndpoint(h, rx.url("/hooks"), {});
    await deadLetters(h, ep, 5);
    rx.behave(() => ({ status: 200 }));
    const started = await h.api<JobOut>("POST", "/api/v1/dlq/replay", {
      endpointId: ep.endpointId,
      ratePerSecond: 2,
      canarySize: 0,
    });
    const id = started.body.id;
    for (let n = 1; n <= 5; n++) {
      // The n-th token is there: the n-th replay is made, and its result is in.
      const job = await untilJob(h, id, (j) => j.progress.succeeded === n);
      // No clock time has passed since: no further replay may have been queued.
      expect(job.progress.queued).toBe(n);
      clock.advance(500);
    }
    const done = await untilJob(h, id, (j) => j.state === "completed");
    expect(done.progress).toMatchObject({ total: 5, succeeded: 5 });
    expect(rx.requests).toHaveLength(10);
  });
});
