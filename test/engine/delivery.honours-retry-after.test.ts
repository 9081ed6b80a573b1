import { afterEach, describe, expect, it } from "vitest";
import { FakeClock } from "../support/fake-clock.js";
import { reached, startEngine, type EngineHarness } from "../support/engine.js";
import { Receiver } from "../support/receiver.js";

// A ladder with wide jitter: a retry that lands exactly on Retry-After proves no jitter was added.
const policy = {
  retry: {
    delays: [60, 60, 60],
    window: 7 * 86_400,
    jitter: { strategy: "proportional" as const, ratio: 0.5 },
  },
};

describe("Retry-After on a failed attempt", () => {
  let h: EngineHarness;
  let rx: Receiver;
  afterEach(async () => {
    await h.close();
    await rx.close();
  });

  async function firstRetry(retryAfter: string, status = 429) {
    const clock = new FakeClock();
    h = await startEngine({ clock, random: () => 0.99 });
    rx = await Receiver.start(() => ({ status, headers: { "retry-after": retryAfter } }));
    const ep = await h.addEndpoint(rx.url("/limited"), policy);
    const start = clock.now();
    const msgId = await h.post({});
    const e = await h.waitFor(reached(msgId, "pending"));
    const stats = await h.store.getEndpointStats(ep.id);
    // The wait asked for, as the attempt keeps it for the message's page.
    const page = await h.store.listAttempts({ appId: ep.appId, messageId: msgId, limit: 10 });
    const asked = page.data.map((a) => a.retryAfterMs);
    return { delay: (e.type === "delivery" ? e.nextAttemptAt! : 0) - start, stats, asked };
  }

  it("under 4 hours is honoured exactly, replacing the ladder's delay", async () => {
    const { delay, stats, asked } = await firstRetry("120");
    expect(delay).toBe(120_000);
    expect(stats.retryAfter).toEqual({ honoured: 1, capped: 0, ignored: 0 });
    expect(asked).toEqual([120_000]);
  });

  it("as an HTTP date, is turned into a delta", async () => {
    const at = new Date(Date.UTC(2026, 0, 1) + 90_000).toUTCString();
    const { delay, asked } = await firstRetry(at, 503);
    expect(delay).toBe(90_000);
    expect(asked).toEqual([90_000]);
  });

  it("between 4 and 24 hours is capped at 4 hours", async () => {
    const { delay, stats, asked } = await firstRetry(String(10 * 3600));
    expect(delay).toBe(4 * 3600 * 1000);
    expect(stats.retryAfter).toEqual({ honoured: 0, capped: 1, ignored: 0 });
    // The wait asked for, not the one kept: the page says both.
    expect(asked).toEqual([10 * 3600 * 1000]);
  });

  it("above 24 hours, or malformed, is ignored and the ladder applies", async () => {
    const { delay, stats, asked } = await firstRetry(String(3 * 86_400));
    expect(delay).toBeGreaterThanOrEqual(30_000);
    expect(delay).toBeLessThanOrEqual(90_000);
    expect(stats.retryAfter.ignored).toBe(1);
    // The ladder set the time, so the attempt says nothing of a Retry-After.
    expect(asked).toEqual([null]);
  });

  it("is still bounded by the retry window", async () => {
    const clock = new FakeClock();
    h = await startEngine({ clock });
    rx = await Receiver.start(() => ({ status: 503, headers: { "retry-after": "3600" } }));
    const ep = await h.addEndpoint(rx.url("/x"), { retry: { delays: [60, 60], window: 1800 } });
    const msgId = await h.post({});
    await h.waitFor(reached(msgId, "dead"));
    // No retry followed, so it set no wait.
    const page = await h.store.listAttempts({ appId: ep.appId, messageId: msgId, limit: 10 });
    expect(page.data.map((a) => a.retryAfterMs)).toEqual([null]);
  });
});
