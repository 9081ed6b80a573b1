/**
 * The API calls the dashboard relies on: send-example reaches one endpoint only, stats count
 * attempts per bucket, and bulk replay jobs can be listed.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { deliveryOf, startHookline, type TestHookline } from "../support/hookline.js";
import { Receiver } from "../support/receiver.js";

describe("dashboard data", () => {
  let h: TestHookline;
  let rx: Receiver;
  beforeAll(async () => {
    h = await startHookline();
    rx = await Receiver.start();
  });
  afterAll(async () => {
    await h.stop();
    await rx.close();
  });

  it("sends a test event to the chosen endpoint only, and counts it in the stats", async () => {
    const app = await h.svix.application.create({ name: "Acme" });
    const chosen = await h.svix.endpoint.create(app.id, { url: rx.url("/chosen") });
    await h.svix.endpoint.create(app.id, { url: rx.url("/other") });
    const msg = await h.svix.endpoint.sendExample(app.id, chosen.id, { eventType: "ping.test" });
    await h.waitFor(deliveryOf(msg.id, "succeeded"));
    expect(rx.on("/chosen")).toHaveLength(1);
    expect(rx.on("/other")).toHaveLength(0);
    expect(JSON.parse(rx.on("/chosen")[0]!.body.toString())).toMatchObject({ type: "ping.test" });

    const stats = await h.api<{ buckets: { attempts: number; successRate: number }[] }>(
      "GET",
      `/api/v1/app/${app.id}/endpoint/${chosen.id}/attempt-stats?minutes=60&bucket_seconds=60`,
    );
    expect(stats.status).toBe(200);
    expect(stats.body.buckets.reduce((n, b) => n + b.attempts, 0)).toBe(1);
    expect(stats.body.buckets[0]!.successRate).toBe(1);
  });

  it("uses the event type's example payload when it has one, and refuses a missing index", async () => {
    const app = await h.svix.application.create({ name: "Globex" });
    const ep = await h.svix.endpoint.create(app.id, { url: rx.url("/examples") });
    await h.svix.eventType.create({
      name: "invoice.paid",
      description: "An invoice was paid",
      schemas: { "1": { type: "object", examples: [{ invoice: "in_1", amount: 42 }] } },
    });
    const msg = await h.svix.endpoint.sendExample(app.id, ep.id, { eventType: "invoice.paid" });
    await h.waitFor(deliveryOf(msg.id, "succeeded"));
    expect(JSON.parse(rx.on("/examples")[0]!.body.toString())).toEqual({
      invoice: "in_1",
      amount: 42,
    });
    const bad = await h.api("POST", `/api/v1/app/${app.id}/endpoint/${ep.id}/send-example`, {
      eventType: "invoice.paid",
      exampleIndex: 3,
    });
    expect(bad.status).toBe(422);
    const narrow = await h.api(
      "GET",
      `/api/v1/app/${app.id}/endpoint/${ep.id}/attempt-stats?minutes=10080&bucket_seconds=10`,
    );
    expect(narrow.status).toBe(422);
  });

  it("lists bulk replay jobs, newest first", async () => {
    const first = await h.api<{ id: string }>("POST", "/api/v1/dlq/replay", {
      failureClass: "exhausted",
      note: "one",
    });
    const second = await h.api<{ id: string }>("POST", "/api/v1/dlq/replay", {
      failureClass: "exhausted",
      note: "two",
    });
    expect([first.status, second.status]).toEqual([202, 202]);
    const list = await h.api<{ data: { id: string }[] }>("GET", "/api/v1/dlq/replay?limit=2");
    expect(list.status).toBe(200);
    expect(list.body.data.map((j) => j.id)).toEqual([second.body.id, first.body.id]);
  });
});
