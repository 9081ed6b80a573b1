/**
 * A whole hookline on a fake clock, with the default circuit breaker: three healthy endpoints and
 * one whose receiver answers 500 to everything. After five failures its circuit opens and only
 * probes go out, minutes apart, so the endpoint never makes the ten attempts in five minutes a
 * success rate needs. It is down all the same: `endpoint_failing` must fire for it, stay firing
 * while its circuit stays open (through windows with no attempt at all), and resolve once the
 * circuit closes.
 */
import { afterAll, describe, expect, it } from "vitest";
import { post } from "../support/dlq.js";
import { FakeClock } from "../support/fake-clock.js";
import { deliveryOf, startHookline, type TestHookline } from "../support/hookline.js";
import { Receiver } from "../support/receiver.js";

interface Alert {
  id: string;
  rule: string;
  endpointId: string | null;
  summary: string;
}
type Alerts = { firing: Alert[]; resolved: Alert[] };

const TICK = 30_000;
const MIN = 60_000;

let h: TestHookline | null = null;
let downAnswers = 500;
const healthy = await Receiver.start(() => ({ status: 204 }));
const down = await Receiver.start(() => ({ status: downAnswers }));
afterAll(async () => {
  await h?.stop();
  await healthy.close();
  await down.close();
});

describe("an endpoint that is down", () => {
  it("fires endpoint_failing while its circuit is open and resolves when it closes", async () => {
    const clock = new FakeClock(Date.now());
    h = await startHookline({
      env: { HOOKLINE_ALERT_INTERVAL_SECONDS: "3600", HOOKLINE_ALERT_ENDPOINT_FOR_MINUTES: "0" },
      overrides: { clock },
    });
    const app = await h.api<{ id: string }>("POST", "/api/v1/app", { name: "Acme" });
    const endpoint = async (url: string) => {
      const ep = await h!.api<{ id: string }>("POST", `/api/v1/app/${app.body.id}/endpoint`, {
        url,
      });
      expect(ep.status).toBe(201);
      return ep.body.id;
    };
    const good = [
      await endpoint(healthy.url("/a")),
      await endpoint(healthy.url("/b")),
      await endpoint(healthy.url("/c")),
    ];
    const bad = await endpoint(down.url("/down"));

    /** One message to all four; waits until the healthy three have it. */
    const message = async (i: number) => {
      const msg = await post(h!, app.body.id, { i });
      for (const ep of good) await h!.waitFor(deliveryOf(msg, "succeeded", ep));
      return msg;
    };
    const tick = async () => {
      clock.advance(TICK);
      await h!.hookline.observability.evaluator.tick();
    };
    const alertsOfBad = async () => {
      const { body } = await h!.api<Alerts>("GET", "/api/v1/alerts");
      const ofBad = (list: Alert[]) =>
        list.filter((a) => a.rule === "endpoint_failing" && a.endpointId === bad);
      return { firing: ofBad(body.firing), resolved: ofBad(body.resolved) };
    };
    const circuit = (to: string) =>
      h!.waitFor((e) => e.type === "circuit" && e.endpointId === bad && e.transition.to === to);

    for (let i = 0; i < 12; i++) await message(i);
    await circuit("open");
    const attempts = h.events.filter(
      (e) => e.type === "delivery" && e.endpointId === bad && e.attempt,
    ).length;
    expect(attempts).toBeLessThan(10);

    await tick();
    const { firing } = await alertsOfBad();
    expect(firing).toHaveLength(1);
    expect(firing[0]!.summary).toContain("circuit is open");

    // Twenty minutes of healthy traffic elsewhere and nothing but failed probes here: windows
    // with no attempt to it at all keep the alert firing, the same alert.
    for (let elapsed = 0; elapsed < 20 * MIN; elapsed += TICK) {
      if (elapsed % MIN === 0) await message(100 + elapsed);
      await tick();
      expect((await alertsOfBad()).firing.map((a) => a.id)).toEqual([firing[0]!.id]);
    }

    // The receiver answers again: the next probe turns the circuit half-open (still firing),
    // five successes close it, and the alert resolves at the next evaluation.
    downAnswers = 204;
    for (let i = 0; i < 60 * 2 && !h.events.some(isHalfOpen(bad)); i++) await tick();
    expect((await alertsOfBad()).firing.map((a) => a.id)).toEqual([firing[0]!.id]);
    for (let i = 0; i < 10 && !h.events.some(isClosed(bad)); i++) {
      const msg = await message(200 + i);
      await h.waitFor(deliveryOf(msg, "succeeded", bad));
    }
    await circuit("closed");
    await tick();
    const after = await alertsOfBad();
    expect(after.firing).toEqual([]);
    expect(after.resolved.map((a) => a.id)).toEqual([firing[0]!.id]);
  });
});

const isHalfOpen =
  (id: string) => (e: { type: string; endpointId?: string; transition?: { to: string } }) =>
    e.type === "circuit" && e.endpointId === id && e.transition?.to === "half-open";
const isClosed =
  (id: string) => (e: { type: string; endpointId?: string; transition?: { to: string } }) =>
    e.type === "circuit" && e.endpointId === id && e.transition?.to === "closed";
