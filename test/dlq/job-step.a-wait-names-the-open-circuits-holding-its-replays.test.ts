/**
 * A job whose replays wait behind an endpoint's open circuit says so, and until when: each probe
 * is one replay, and probes come up to an hour apart.
 */
import { describe, expect, it } from "vitest";
import { nextJobStep } from "../../src/dlq/job-step.js";
import { FakeClock } from "../support/fake-clock.js";
import { aRunningJob } from "../support/replay-job.js";

describe("a wait held by open circuits", () => {
  const clock = new FakeClock(Date.UTC(2026, 0, 1, 9));
  const at = (minutes: number) => clock.now() + minutes * 60_000;
  const held = (endpointId: string, replays: number, nextProbeAt: number | null) => ({
    endpointId,
    replays,
    openedAt: at(-5),
    nextProbeAt,
  });

  it("names each endpoint whose circuit holds replays, and its next probe", () => {
    const job = aRunningJob({ queued: 10, succeeded: 4 });
    const circuits = {
      now: clock.now(),
      held: [held("ep_a", 1, at(20)), held("ep_b", 3, at(60))],
    };
    expect(nextJobStep(job, 5, circuits)).toEqual({
      kind: "wait",
      reason:
        "canary: waiting for 6 of 10 results; " +
        "1 waits for the open circuit of endpoint ep_a (next probe at 2026-01-01T09:20:00.000Z); " +
        "3 wait for the open circuit of endpoint ep_b (next probe at 2026-01-01T10:00:00.000Z)",
    });
  });

  it("once the probe's time has come, says the probe is due", () => {
    // Open since before the job started: the job waits for it (see the rest's stop).
    const job = aRunningJob({ queued: 20, succeeded: 18 }, { stage: "rest", startedAt: at(0) });
    const probeAt = at(1);
    clock.advance(60_000);
    expect(nextJobStep(job, 2, { now: clock.now(), held: [held("ep_a", 2, probeAt)] })).toEqual({
      kind: "wait",
      reason:
        "waiting for results: 2 replays out at once; " +
        "2 wait for the open circuit of endpoint ep_a (its probe is due)",
    });
  });

  it("circuits change no step but a wait", () => {
    const circuits = { now: clock.now(), held: [held("ep_a", 1, null)] };
    expect(nextJobStep(aRunningJob({ queued: 3, succeeded: 3 }), 5, circuits)).toEqual({
      kind: "enqueue",
    });
  });
});
