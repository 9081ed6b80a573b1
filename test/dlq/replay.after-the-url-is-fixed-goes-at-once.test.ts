/**
 * The usual way out of an outage: a customer's endpoint failed until its circuit opened and its
 * messages were dead-lettered; the customer fixes its URL and replays them. The fix brings the
 * circuit's probe forward to now (delivery.md), yet a single replay then answered 202, "queued
 * behind its probe at" the old probe time, minutes off, while it went out at once: the engine's
 * live circuit had not yet heard that the probe moved. The replay now reads the sooner probe.
 */
import { afterEach, expect, it } from "vitest";
import { anEndpoint, deadLetters, dlqChange } from "../support/dlq.js";
import { startHookline, type TestHookline } from "../support/hookline.js";
import { Receiver } from "../support/receiver.js";

let h: TestHookline;
let rx: Receiver;
afterEach(async () => {
  await h.stop();
  await rx.close();
});

it("a replay after the URL is fixed is sent at once, not queued behind the old probe", async () => {
  h = await startHookline({
    overrides: { breaker: { consecutiveFailures: 2, probeDelayMs: 10 * 60_000 } },
  });
  rx = await Receiver.start((req) => (req.path === "/good" ? { status: 200 } : { status: 503 }));
  const ep = await anEndpoint(h, rx.url("/bad"));
  const opened = h.waitFor((e) => e.type === "circuit" && e.transition.to === "open");
  const [first] = await deadLetters(h, ep, 2);
  await opened;

  const path = `/api/v1/app/${ep.appId}/endpoint/${ep.endpointId}`;
  expect((await h.api("PATCH", path, { url: rx.url("/good") })).status).toBe(200);
  const replayed = h.waitFor(dlqChange("replay_succeeded", first!.id));
  const res = await h.api<{ result: string; detail: string }>(
    "POST",
    `/api/v1/dlq/${first!.id}/replay`,
  );
  expect(res.body.detail ?? "").not.toContain("queued behind its probe");
  expect(res.status).toBe(200);
  await replayed;
  expect(rx.on("/good")).toHaveLength(1);
});
