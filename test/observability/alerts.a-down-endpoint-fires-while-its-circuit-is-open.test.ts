/**
 * A whole hookline on a fake clock, with the default circuit breaker: three healthy endpoints and
 * one whose receiver answers 500 to everything. After five failures its circuit opens and only
 * probes go out, minutes apart, so the endpoint never makes the ten attempts in five minutes a
 * success rate needs. It is down all the same: `endpoint_failing` must fire for it, stay firing
 * while its circuit stays open (through windows with no attempt at all), and resolve once the
 * circuit closes. On PostgreSQL the worker lets go of the endpoint once it is idle for 10 seconds,
 * open circuit and all, and the alert must not go quiet then. Disabled, it is no longer reported.
 */
import { afterAll, describe, expect, it } from "vitest";
import { post } from "../support/dlq.js";
import { FakeClock } from "../support/fake-clock.js";
import { deliveryOf, startHookline, type TestHookline } from "../support/hookline.js";
import { dropSchema, freshSchemaName, TEST_DATABASE_URL } from "../support/postgres.js";
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

const healthy = await Receiver.start(() => ({ status: 204 }));
afterAll(() => healthy.close());

describe.each(["sqlite", "postgres"] as const)("an endpoint that is down, on %s", (kind) => {
  let h: TestHookline | null = null;
  let downAnswers = 500;
  const schema = freshSchemaName();
  let down: Receiver;
  afterAll(async () => {
    await h?.stop();
    await down?.close();
    if (kind === "postgres") await dropSchema(schema);
  });

  /** A hookline on `clock` with three healthy endpoints and one down, in one application. */
  const setUp = async (clock: FakeClock) => {
    down = await Receiver.start(() => ({ status: downAnswers }));
    h = await startHookline({
      env: {
        HOOKLINE_ALERT_INTERVAL_SECONDS: "3600",
        HOOKLINE_ALERT_ENDPOINT_FOR_MINUTES: "0",
        ...(kind === "postgres"
          ? { DATABASE_URL: TEST_DATABASE_URL, HOOKLINE_PG_SCHEMA: schema }
          : {}),
      },
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
    return { appId: app.body.id, good, bad };
  };

  it("fires endpoint_failing while its circuit is open and resolves when it closes", async () => {
    const clock = new FakeClock(Date.now());
    const { appId, good, bad } = await setUp(clock);
    const hl = h!;
    /**
     * Waits for an engine event, moving the clock on by 100 ms every few real milliseconds: on
     * PostgreSQL the engine also looks for due deliveries on a timer of the injected clock.
     */
    const waitFor = async (predicate: Parameters<TestHookline["waitFor"]>[0]) => {
      const seen = hl.waitFor(predicate);
      let done = false;
      void seen.finally(() => (done = true)).catch(() => {});
      while (!done) {
        clock.advance(100);
        await new Promise((r) => setTimeout(r, 5));
      }
      return seen;
    };

    /** One message to all four; waits until the healthy three have it. */
    const message = async (i: number) => {
      const msg = await post(h!, appId, { i });
      for (const ep of good) await waitFor(deliveryOf(msg, "succeeded", ep));
      return msg;
    };
    const tick = async () => {
      clock.advance(TICK);
      await hl.hookline.observability.evaluator.tick();
    };
    const alertsOfBad = async () => {
      const { body } = await hl.api<Alerts>("GET", "/api/v1/alerts");
      const ofBad = (list: Alert[]) =>
        list.filter((a) => a.rule === "endpoint_failing" && a.endpointId === bad);
      return { firing: ofBad(body.firing), resolved: ofBad(body.resolved) };
    };
    const circuit = (to: string) =>
      waitFor((e) => e.type === "circuit" && e.endpointId === bad && e.transition.to === to);

    for (let i = 0; i < 12; i++) await message(i);
    await circuit("open");
    const attempts = hl.events.filter(
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
    for (let i = 0; i < 60 * 2 && !hl.events.some(isHalfOpen(bad)); i++) await tick();
    expect((await alertsOfBad()).firing.map((a) => a.id)).toEqual([firing[0]!.id]);
    for (let i = 0; i < 10 && !hl.events.some(isClosed(bad)); i++) {
      const msg = await message(200 + i);
      await waitFor(deliveryOf(msg, "succeeded", bad));
    }
    await circuit("closed");
    await tick();
    const after = await alertsOfBad();
    expect(after.firing).toEqual([]);
    expect(after.resolved.map((a) => a.id)).toEqual([firing[0]!.id]);

    // Down again, then disabled by its owner: nothing is sent to it, and it is no longer reported.
    downAnswers = 500;
    const opened = hl.events.filter(isOpen(bad)).length;
    const reopened = () => hl.events.filter(isOpen(bad)).length > opened;
    for (let i = 0; i < 12 && !reopened(); i++) await message(300 + i);
    await waitFor(() => reopened());
    await tick();
    expect((await alertsOfBad()).firing).toHaveLength(1);
    await hl.svix.endpoint.patch(appId, bad, { disabled: true });
    await tick();
    expect((await alertsOfBad()).firing).toEqual([]);
  });
});

type CircuitEvent = { type: string; endpointId?: string; transition?: { to: string } };
const isOpen = (id: string) => (e: CircuitEvent) =>
  e.type === "circuit" && e.endpointId === id && e.transition?.to === "open";

const isHalfOpen =
  (id: string) => (e: { type: string; endpointId?: string; transition?: { to: string } }) =>
    e.type === "circuit" && e.endpointId === id && e.transition?.to === "half-open";
const isClosed =
  (id: string) => (e: { type: string; endpointId?: string; transition?: { to: string } }) =>
    e.type === "circuit" && e.endpointId === id && e.transition?.to === "closed";
