/**
 * `hookline dlq cancel` says the replays still queued are taken back, and that the count it
 * prints is the job's: withdrawn over the whole job, including any withdrawn before the cancel.
 * It said "N queued replays withdrawn", as if the cancel had taken back all N.
 */
import { afterEach, describe, expect, it } from "vitest";
import { dlqCommand } from "../../src/cli/dlq.js";
import { anEndpoint, deadLetters, untilJob, type JobOut } from "../support/dlq.js";
import { FakeClock } from "../support/fake-clock.js";
import { startHookline, type TestHookline } from "../support/hookline.js";
import { Receiver } from "../support/receiver.js";

describe("hookline dlq cancel", () => {
  let h: TestHookline;
  let rx: Receiver;
  afterEach(async () => {
    await h.stop();
    await rx.close();
  });

  it("says the queued replays are taken back and counts the job's withdrawn", async () => {
    const clock = new FakeClock();
    h = await startHookline({
      overrides: { clock, breaker: { consecutiveFailures: 2, probeDelayMs: 60 * 60_000 } },
    });
    rx = await Receiver.start(() => ({ status: 503 }));
    const ep = await anEndpoint(h, rx.url("/hooks"));
    const records = await deadLetters(h, ep, 2);
    await h.waitFor((e) => e.type === "circuit" && e.transition.to === "open");

    const started = await h.api<JobOut>("POST", "/api/v1/dlq/replay", {
      ids: records.map((r) => r.id),
      ratePerSecond: 5,
      canarySize: 2,
    });
    // The probe stays an hour off, so both replays wait behind the open circuit.
    await untilJob(h, started.body.id, (j) => j.progress.queued === 1);
    clock.advance(1_000);
    await untilJob(h, started.body.id, (j) => j.progress.queued === 2);

    let out = "";
    const cmd = dlqCommand(
      { url: h.url, token: h.token },
      {
        out: { write: (s: string) => (out += s) },
        now: () => Date.now(),
        sleep: async () => {},
        setExitCode: () => {},
      },
    );
    for (const c of [cmd, ...cmd.commands]) c.exitOverride();
    await cmd.parseAsync(["cancel", started.body.id], { from: "user" });

    expect(out).toBe(
      `${started.body.id} is cancelled; replays still queued are taken back (2 withdrawn over the job)\n`,
    );
  });
});
