/**
 * A replay's ending is counted in hookline_dlq_replays_total, never in
 * hookline_deliveries_ended_total nor in the retry exhaustion rate's tally: also a replay that
 * ends without a request, its endpoint disabled while it waited (the record reopens).
 */
import { afterEach, describe, expect, it } from "vitest";
import { aReplayBehindAHeldRequest } from "../support/held-replay.js";
import { scrape } from "../support/metrics.js";

describe("a replay that sends nothing", () => {
  const cleanups: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const c of cleanups.splice(0).reverse()) await c();
  });

  it("is not counted as a delivery that ended", async () => {
    const { h, rx, ep, answer } = await aReplayBehindAHeldRequest<{ result: string }>(cleanups);
    // The held request is answered 410: its delivery ends permanent and the endpoint is
    // disabled, so the replay waiting behind it ends without a request.
    rx.answerHeld(410);
    expect((await answer).body.result).toBe("withdrawn");

    const s = await scrape(h.url, h.token);
    const ended = (result: string) =>
      s.get(`hookline_deliveries_ended_total{endpoint="${ep.endpointId}",result="${result}"}`) ?? 0;
    // The dead-lettered delivery (one attempt: exhausted) and the one answered 410 (permanent).
    expect(ended("exhausted")).toBe(1);
    expect(ended("permanent")).toBe(1);
    const { tally } = h.hookline.observability.metrics;
    expect({ exhausted: tally.exhausted, permanent: tally.permanent }).toEqual({
      exhausted: 1,
      permanent: 1,
    });
  });
});
