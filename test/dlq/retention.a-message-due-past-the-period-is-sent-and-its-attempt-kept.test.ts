/**
 * A message posted with a deliverAt further out than HOOKLINE_RETENTION_DAYS is kept until it is
 * sent (retention never takes a message with a delivery still to be made), and then kept for the
 * retention period after its last attempt: retention counted from acceptance alone took it, with
 * the attempt just made, at the next hourly run after it was sent.
 */
import { afterEach, expect, it } from "vitest";
import { FakeClock } from "../support/fake-clock.js";
import { deliveryOf, startHookline, type TestHookline } from "../support/hookline.js";
import { Receiver } from "../support/receiver.js";

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

let h: TestHookline | null = null;
let rx: Receiver | null = null;
afterEach(async () => {
  await h?.stop();
  await rx?.close();
});

it("a message due three days out with one day's retention is sent, and its attempt read after", async () => {
  const clock = new FakeClock();
  h = await startHookline({
    env: { HOOKLINE_RETENTION_DAYS: "1" },
    overrides: { clock, retention: { firstRunMs: HOUR, intervalMs: HOUR } },
  });
  rx = await Receiver.start(() => ({ status: 200 }));
  await h.svix.application.create({ name: "Acme", uid: "acme" });
  await h.svix.endpoint.create("acme", { url: rx.url("/hooks") });
  const deliverAt = new Date(clock.now() + 3 * DAY);
  const msg = await h.svix.message.create("acme", {
    eventType: "trial.ending",
    payload: { trial: 7 },
    deliverAt,
  });

  // Hour by hour up to its time, retention running each hour: the message stays.
  for (let hour = 1; hour < 72; hour++) {
    clock.advance(HOUR);
    await h.hookline.retention.runOnce();
  }
  expect((await h.svix.message.get("acme", msg.id)).deliverAt).toEqual(deliverAt);
  clock.advance(HOUR);
  await h.waitFor(deliveryOf(msg.id, "succeeded"));
  expect(rx.on("/hooks").map((r) => r.headers["webhook-id"])).toEqual([msg.id]);

  // The next runs leave it, and its attempt, for a day after it was sent.
  clock.advance(HOUR);
  await h.hookline.retention.runOnce();
  const attempts = await h.svix.messageAttempt.listByMsg("acme", msg.id);
  expect(attempts.data.map((a) => a.responseStatusCode)).toEqual([200]);

  clock.advance(DAY);
  await h.hookline.retention.runOnce();
  await expect(h.svix.message.get("acme", msg.id)).rejects.toMatchObject({ code: 404 });
});
