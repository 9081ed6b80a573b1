/**
 * A repeated eventId answers the message that has it only while hookline keeps that message:
 * retention takes it after HOOKLINE_RETENTION_DAYS, eventId and all, and a post with the eventId
 * after that is a new message, delivered again. delivery.md says so; a producer replaying an
 * outbox older than the retention period must not count on the eventId to drop what was sent.
 */
import { afterEach, expect, it } from "vitest";
import { FakeClock } from "../support/fake-clock.js";
import { deliveryOf, startHookline, type TestHookline } from "../support/hookline.js";
import { Receiver } from "../support/receiver.js";

const DAY = 86_400_000;

let h: TestHookline | null = null;
let rx: Receiver | null = null;
afterEach(async () => {
  await h?.stop();
  await rx?.close();
});

it("a post with the eventId of a message retention took is a new message, sent again", async () => {
  const clock = new FakeClock();
  h = await startHookline({
    env: { HOOKLINE_RETENTION_DAYS: "1" },
    overrides: { clock, retention: { firstRunMs: 3_600_000, intervalMs: 3_600_000 } },
  });
  rx = await Receiver.start(() => ({ status: 200 }));
  await h.svix.application.create({ name: "Acme", uid: "acme" });
  await h.svix.endpoint.create("acme", { url: rx.url("/hooks") });
  const order = { eventType: "order.paid", eventId: "order-42", payload: { order: 42 } };

  const first = await h.svix.message.create("acme", order);
  await h.waitFor(deliveryOf(first.id, "succeeded"));
  const again = await h.svix.message.create("acme", order);
  expect(again.id).toBe(first.id);

  clock.advance(DAY + 3_600_000);
  await h.hookline.retention.runOnce();
  await expect(h.svix.message.get("acme", "order-42")).rejects.toMatchObject({ code: 404 });

  const later = await h.svix.message.create("acme", order);
  expect(later.id).not.toBe(first.id);
  await h.waitFor(deliveryOf(later.id, "succeeded"));
  expect(rx.on("/hooks").map((r) => r.headers["webhook-id"])).toEqual([first.id, later.id]);
});
