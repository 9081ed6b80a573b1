/**
 * A replay that ends without a request (its endpoint disabled while it waited) tells nothing of
 * the receiver: hookline_dlq_replays_total counts it `withdrawn`, as a bulk job does, not
 * `failed` — a rise in failed replays means receivers failing them.
 */
import { afterEach, describe, expect, it } from "vitest";
import { aReplayBehindAHeldRequest } from "../support/held-replay.js";
import { scrape } from "../support/metrics.js";

describe("a replay that sends nothing", () => {
  const cleanups: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const c of cleanups.splice(0).reverse()) await c();
  });

  it("is counted withdrawn in hookline_dlq_replays_total, not failed", async () => {
    const { h, rx, answer } = await aReplayBehindAHeldRequest<{ result: string }>(cleanups);
    const replays = (s: Map<string, number>, result: string) =>
      s.get(`hookline_dlq_replays_total{result="${result}"}`);
    expect(replays(await scrape(h.url, h.token), "withdrawn")).toBe(0);
    // The held request is answered 410: the endpoint is disabled, so the replay waiting behind
    // it ends without a request.
    rx.answerHeld(410);
    expect((await answer).body.result).toBe("failed");

    const s = await scrape(h.url, h.token);
    expect(replays(s, "withdrawn")).toBe(1);
    expect(replays(s, "failed")).toBe(0);
  });
});
