/**
 * An API-only process (`--role api`) delivers nothing, so it has no delivery budget: its /metrics
 * leaves out `hookline_deliveries_held`, `hookline_delivery_budget` and `hookline_delivery_pace`
 * (as observability.md says) rather than showing them as 0, which read as a process whose budget
 * had fallen to nothing and made `sum(hookline_delivery_budget)` over a fleet count it as such.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startHookline, type TestHookline } from "../support/hookline.js";
import { scrape } from "../support/metrics.js";
import { dropSchema, freshSchemaName, TEST_DATABASE_URL } from "../support/postgres.js";

const schema = freshSchemaName();
let h: TestHookline;
beforeAll(async () => {
  h = await startHookline({
    env: { DATABASE_URL: TEST_DATABASE_URL, HOOKLINE_PG_SCHEMA: schema, HOOKLINE_ROLE: "api" },
  });
});
afterAll(async () => {
  await h.stop();
  await dropSchema(schema);
});

describe("the delivery gauges of an API-only process", () => {
  it("are absent, while the metrics it does have are there", async () => {
    const s = await scrape(h.url, h.token);
    expect(s.has("hookline_deliveries_held")).toBe(false);
    expect(s.has("hookline_delivery_budget")).toBe(false);
    expect(s.has("hookline_delivery_pace")).toBe(false);
    expect(s.get("hookline_metrics_tracked_endpoints")).toBe(0);
    expect(s.get("hookline_dlq_depth")).toBe(0);
  });
});
