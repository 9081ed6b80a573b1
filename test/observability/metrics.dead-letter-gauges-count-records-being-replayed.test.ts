/**
 * The dead-letter gauges count a record being replayed as well as the open ones (it is still in
 * the queue until its replay succeeds), and their HELP says so, as observability.md does: the HELP
 * of the age gauges and of the per-endpoint depth said "open" records only, so an operator reading
 * /metrics took a queue whose records were all being replayed for one nobody was working.
 */
import { afterEach, describe, expect, it } from "vitest";
import { aReplayBehindAHeldRequest } from "../support/held-replay.js";
import { parseMetrics } from "../support/metrics.js";

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

/** The HELP line of each metric family on the page. */
function helpOf(text: string): Map<string, string> {
  const help = new Map<string, string>();
  for (const m of text.matchAll(/^# HELP (\S+) (.*)$/gm)) help.set(m[1]!, m[2]!);
  return help;
}

describe("the dead-letter gauges", () => {
  it("count a record being replayed, and say so in their HELP", async () => {
    const { h, rx, ep, answer } = await aReplayBehindAHeldRequest(cleanups);
    const res = await fetch(`${h.url}/metrics`, {
      headers: { authorization: `Bearer ${h.token}` },
    });
    const text = await res.text();
    const samples = parseMetrics(text);
    expect(samples.get("hookline_dlq_depth")).toBe(1);
    expect(samples.get(`hookline_dlq_endpoint_depth{endpoint="${ep.endpointId}"}`)).toBe(1);
    expect(samples.has("hookline_dlq_oldest_age_seconds")).toBe(true);
    expect(
      samples.has(`hookline_dlq_endpoint_oldest_age_seconds{endpoint="${ep.endpointId}"}`),
    ).toBe(true);

    const help = helpOf(text);
    for (const name of [
      "hookline_dlq_depth",
      "hookline_dlq_oldest_age_seconds",
      "hookline_dlq_endpoint_depth",
      "hookline_dlq_endpoint_oldest_age_seconds",
    ]) {
      expect(help.get(name), name).toMatch(/open and replaying|open or replaying/i);
    }

    // A 410 disables the endpoint, so the replay ends unsent rather than waiting to be held too.
    rx.answerHeld(410);
    await answer;
  });
});
