/**
 * A replay that ends without a request (its endpoint disabled while it waited) tells nothing of
 * the receiver: hookline_dlq_replays_total counts it `withdrawn`, as a bulk job does, and
 * hookline_dlq_events_total as `replay_withdrawn`, neither as a failed replay — a rise in failed
 * replays (and an alert on one) means receivers failing them.
 */
import { afterEach, describe, expect, it } from "vitest";
import { aReplayBehindAHeldRequest } from "../support/held-replay.js";
import { scrape } from "../support/metrics.js";

describe("a replay that sends nothing", () => {
  const cleanups: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const c of cleanups.splice(0).reverse()) await c();
  });

  it("is counted withdrawn in hookline_dlq_replays_total and hookline_dlq_events_total, not failed", async () => {
    const { h, rx, answer } = await aReplayBehindAHeldRequest<{ result: string }>(cleanups);
    const replays = (s: Map<string, number>, result: string) =>
      s.get(`hookline_dlq_replays_total{result="${result}"}`);
    const events = (s: Map<string, number>, kind: string) =>
      s.get(`hookline_dlq_events_total{kind="${kind}"}`);
    const before = await scrape(h.url, h.token);
    expect(replays(before, "withdrawn")).toBe(0);
    // Exported at 0 from start, as the other kinds are, so that increase() sees the first one.
    expect(events(before, "replay_withdrawn")).toBe(0);
    // The held request is answered 410: the endpoint is disabled, so the replay waiting behind
    // it ends without a request.
    rx.answerHeld(410);
    expect((await answer).body.result).toBe("withdrawn");

    const s = await scrape(h.url, h.token);
    expect(replays(s, "withdrawn")).toBe(1);
    expect(replays(s, "failed")).toBe(0);
    expect(events(s, "replay_withdrawn")).toBe(1);
    expect(events(s, "replay_failed")).toBe(0);
  });
});
