/**
 * send-example with an `exampleIndex` for an event type that has no examples sends the small
 * `{ type, data }` test event, as it does without the index: Svix ignores the index when the
 * type's schema has no examples, and dashboard.md shows the call with `"exampleIndex": 0`.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { deliveryOf, startHookline, type TestHookline } from "../support/hookline.js";
import { Receiver } from "../support/receiver.js";

describe("send-example with an index, for a type without examples", () => {
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

  it("sends { type, data } for a type with no schema, and for one never created", async () => {
    const app = await h.svix.application.create({ name: "Acme" });
    const ep = await h.svix.endpoint.create(app.id, { url: rx.url("/test") });
    await h.svix.eventType.create({ name: "invoice.paid", description: "no schema" });
    for (const [eventType, exampleIndex] of [
      ["invoice.paid", 0],
      ["never.created", 0],
      ["invoice.paid", 2],
    ] as const) {
      const res = await h.api<{ id: string }>(
        "POST",
        `/api/v1/app/${app.id}/endpoint/${ep.id}/send-example`,
        { eventType, exampleIndex },
      );
      expect(res.status).toBe(202);
      await h.waitFor(deliveryOf(res.body.id, "succeeded"));
      const sent = rx.on("/test").at(-1)!;
      expect(JSON.parse(sent.body.toString())).toMatchObject({
        type: eventType,
        data: { test: true },
      });
    }
  });
});
