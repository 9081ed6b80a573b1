/**
 * HOOKLINE_DRILL_INTERVAL_MINUTES runs drills by themselves, on the injected clock: when the
 * interval has passed a drill starts, and it passes with the drill ladder's waits taken on the
 * fake clock too.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FakeClock } from "../support/fake-clock.js";
import { startHookline, type TestHookline } from "../support/hookline.js";

let h: TestHookline;
const clock = new FakeClock(Date.now());
beforeAll(async () => {
  h = await startHookline({
    env: { HOOKLINE_DRILL_INTERVAL_MINUTES: "30", HOOKLINE_ALLOW_PRIVATE_TARGETS: "0" },
    overrides: { clock },
  });
  // Whenever a retry is scheduled, move the clock to it: the ladder waits without a real wait.
  h.hookline.engine.events.on((e) => {
    if (e.type === "delivery" && e.nextAttemptAt !== null) {
      const wait = e.nextAttemptAt - clock.now();
      setImmediate(() => clock.advance(Math.max(0, wait)));
    }
  });
});
afterAll(async () => h.stop());

describe("scheduled drills", () => {
  it("start once the interval has passed and record their trigger", async () => {
    expect((await h.api<{ data: unknown[] }>("GET", "/api/v1/drill")).body.data).toEqual([]);
    clock.advance(30 * 60_000);
    // The scheduled drill is running now; asking for one joins it.
    const run = await h.hookline.observability.drills.run("manual");
    expect(run).toMatchObject({ trigger: "schedule", passed: true });
    const listed = await h.api<{ data: { trigger: string; passed: boolean }[] }>(
      "GET",
      "/api/v1/drill",
    );
    expect(listed.body.data).toEqual([
      expect.objectContaining({ trigger: "schedule", passed: true }),
    ]);
  });
});
