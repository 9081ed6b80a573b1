/**
 * Alerts evaluated by a whole hookline on a fake clock: a dead-letter record left open past 24
 * hours fires `dlq_oldest_age`, GET /api/v1/alerts lists it in the dashboard's shape, a restarted
 * hookline still knows it is firing (and does not fire it twice), and resolving the record
 * resolves the alert.
 */
import { afterAll, describe, expect, it } from "vitest";
import { AlertOut } from "../../src/api/schemas/observability.js";
import { LEVEL_CLEAR_FOR_MS } from "../../src/observability/alert-rules.js";
import { anEndpoint, post } from "../support/dlq.js";
import { FakeClock } from "../support/fake-clock.js";
import { deliveryOf, startHookline, type TestHookline } from "../support/hookline.js";
import { Receiver } from "../support/receiver.js";

interface Alert {
  id: string;
  rule: string;
  severity: string;
  summary: string;
  endpointId: string | null;
  appId: string | null;
  value: number;
  threshold: number;
  since: string;
  resolvedAt: string | null;
  supersededBy: string | null;
}
type Alerts = { firing: Alert[]; resolved: Alert[] };

const HOUR = 3_600_000;
let h: TestHookline | null = null;
const rx = await Receiver.start(() => ({ status: 404 }));
afterAll(async () => {
  await h?.stop();
  await rx.close();
});

describe("alerts through the API", () => {
  it("fire, survive a restart, and resolve", async () => {
    const clock = new FakeClock(Date.now());
    h = await startHookline({ overrides: { clock } });
    const ep = await anEndpoint(h, rx.url("/gone"));
    const msg = await post(h, ep.appId, {});
    await h.waitFor(deliveryOf(msg, "dead"));
    await h.hookline.observability.evaluator.tick();
    expect((await h.api<Alerts>("GET", "/api/v1/alerts")).body).toEqual({
      firing: [],
      resolved: [],
    });

    clock.advance(25 * HOUR);
    await h.hookline.observability.evaluator.tick();
    const { body } = await h.api<Alerts>("GET", "/api/v1/alerts");
    const age = body.firing.find((a) => a.rule === "dlq_oldest_age")!;
    expect(age).toEqual({
      id: expect.stringMatching(/^alrt_/),
      rule: "dlq_oldest_age",
      severity: "warning",
      summary: expect.stringContaining("25.0 h"),
      endpointId: null,
      appId: null,
      value: 25 * 3600,
      threshold: 24 * 3600,
      since: new Date(clock.now()).toISOString(),
      resolvedAt: null,
      supersededBy: null,
    });
    // The OpenAPI document describes every field the route sends, no fewer.
    expect(AlertOut.strict().safeParse(age).error).toBeUndefined();
    const dataDir = h.dataDir;
    await h.stop(true);

    h = await startHookline({ dataDir, overrides: { clock } });
    await h.hookline.observability.evaluator.tick();
    const again = await h.api<Alerts>("GET", "/api/v1/alerts");
    expect(again.body.firing.filter((a) => a.rule === "dlq_oldest_age")).toEqual([age]);

    const records = await h.api<{ data: { id: string }[] }>("GET", "/api/v1/dlq");
    for (const r of records.body.data) {
      const res = await h.api("POST", `/api/v1/dlq/${r.id}/resolve`, { note: "fixed by hand" });
      expect(res.status).toBe(200);
    }
    // Clear from the next evaluation on, the alert resolves once it stayed clear a quiet period.
    clock.advance(60_000);
    await h.hookline.observability.evaluator.tick();
    const clearing = await h.api<Alerts>("GET", "/api/v1/alerts");
    expect(clearing.body.firing.filter((a) => a.rule === "dlq_oldest_age")).toEqual([age]);
    clock.advance(LEVEL_CLEAR_FOR_MS);
    await h.hookline.observability.evaluator.tick();
    const after = await h.api<Alerts>("GET", "/api/v1/alerts");
    expect(after.body.firing).toEqual([]);
    expect(after.body.resolved.find((a) => a.id === age.id)).toEqual({
      ...age,
      resolvedAt: new Date(clock.now()).toISOString(),
    });
  });
});
