/**
 * A whole hookline on a fake clock, restarted on the same SQLite data dir while an endpoint that
 * fails every attempt has its `endpoint_failing` alert firing. The restarted process samples
 * afresh, so its first evaluations have no window of attempts to judge the endpoint by: the alert
 * must fire on through them (no `alert.resolved` announced, no new alert fired) for as long as the
 * endpoint keeps failing, and resolve once a window of attempts shows the endpoint recovered.
 */
import { afterAll, describe, expect, it } from "vitest";
import type { AlertChanges } from "../../src/observability/alert-rules.js";
import { anEndpoint, PATIENT_BREAKER, post } from "../support/dlq.js";
import { FakeClock } from "../support/fake-clock.js";
import { deliveryOf, startHookline, type TestHookline } from "../support/hookline.js";
import { Receiver } from "../support/receiver.js";

interface Alert {
  id: string;
  rule: string;
  endpointId: string | null;
  resolvedAt: string | null;
}
type Alerts = { firing: Alert[]; resolved: Alert[] };

const TICK = 30_000;
const MIN = 60_000;

let h: TestHookline | null = null;
let healthy = false;
const rx = await Receiver.start(() => ({ status: healthy ? 204 : 503 }));
afterAll(async () => {
  await h?.stop();
  await rx.close();
});

describe("a restart while an endpoint's alert is firing", () => {
  it("keeps the alert firing while the endpoint keeps failing, and resolves it once it recovers", async () => {
    const clock = new FakeClock(Date.now());
    // The evaluator runs when the test ticks it; the breaker stays closed so every message is
    // an attempt.
    const start = (dataDir?: string) =>
      startHookline({
        dataDir,
        env: { HOOKLINE_ALERT_INTERVAL_SECONDS: "3600" },
        overrides: { clock, breaker: PATIENT_BREAKER },
      });
    h = await start();
    const ep = await anEndpoint(h, rx.url("/down"));
    const told: AlertChanges[] = [];
    const listen = (w: TestHookline) =>
      w.hookline.observability.evaluator.onChange((c) => told.push(c));
    listen(h);

    /** Two messages delivered (one attempt each), 30 s on, one evaluation. */
    const step = async () => {
      for (let i = 0; i < 2; i++) {
        const msg = await post(h!, ep.appId, { i });
        await h!.waitFor(deliveryOf(msg, healthy ? "succeeded" : "dead"));
      }
      clock.advance(TICK);
      await h!.hookline.observability.evaluator.tick();
    };
    const endpointAlerts = async () => {
      const { body } = await h!.api<Alerts>("GET", "/api/v1/alerts");
      const ofEndpoint = (list: Alert[]) =>
        list.filter((a) => a.rule === "endpoint_failing" && a.endpointId === ep.endpointId);
      return { firing: ofEndpoint(body.firing), resolved: ofEndpoint(body.resolved) };
    };
    const announced = (kind: "fired" | "resolved") =>
      told.flatMap((c) => c[kind]).filter((a) => a.rule === "endpoint_failing");

    // Judged once the window holds ten attempts, all failing; five minutes later it fires.
    for (let i = 0; i < 20 && !announced("fired").length; i++) await step();
    const [alert] = (await endpointAlerts()).firing;
    expect(alert).toBeDefined();

    await h.stop(true);
    h = await start(h.dataDir);
    listen(h);

    // Two windows of the endpoint failing every attempt after the restart.
    for (let elapsed = 0; elapsed < 10 * MIN; elapsed += TICK) {
      await step();
      expect(await endpointAlerts()).toEqual({ firing: [alert], resolved: [] });
    }
    expect(announced("fired").map((a) => a.id)).toEqual([alert!.id]);
    expect(announced("resolved")).toEqual([]);

    // The receiver is fixed: a window of successes later, the alert resolves, once.
    healthy = true;
    for (let elapsed = 0; elapsed <= 6 * MIN && !announced("resolved").length; elapsed += TICK) {
      await step();
    }
    const after = await endpointAlerts();
    expect(after.firing).toEqual([]);
    expect(after.resolved.map((a) => a.id)).toEqual([alert!.id]);
    expect(announced("resolved").map((a) => a.id)).toEqual([alert!.id]);
  });
});
