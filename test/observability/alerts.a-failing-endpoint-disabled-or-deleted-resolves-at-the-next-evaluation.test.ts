/**
 * A whole hookline on a fake clock: three healthy endpoints and two whose receivers fail two
 * requests in three, so their circuits never open (never five failures in a row) and
 * `endpoint_failing` fires on their success rates. Someone disables one and deletes the other:
 * nothing is sent to either any more, and their alerts must resolve at the next evaluation, saying
 * why, not once their attempts have left the 5-minute window. Enabled again while still failing,
 * the first is judged on its attempts since, and fires again as any endpoint does.
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
  resolvedAt: string | null;
}
type Alerts = { firing: Alert[]; resolved: Alert[] };

const TICK = 30_000;
/** Two requests in three fail, never five in a row. */
const flaky = () => Receiver.start((_req, i) => ({ status: i % 3 === 0 ? 204 : 500 }));

const healthy = await Receiver.start(() => ({ status: 204 }));
afterAll(() => healthy.close());

describe.each(["sqlite", "postgres"] as const)("a failing endpoint stopped, on %s", (kind) => {
  let h: TestHookline | null = null;
  const receivers: Receiver[] = [];
  const schema = freshSchemaName();
  afterAll(async () => {
    await h?.stop();
    for (const r of receivers) await r.close();
    if (kind === "postgres") await dropSchema(schema);
  });

  it("resolves its endpoint_failing alert at the next evaluation, and fires again once enabled", async () => {
    const clock = new FakeClock(Date.now());
    h = await startHookline({
      env: {
        HOOKLINE_ALERT_INTERVAL_SECONDS: "3600",
        HOOKLINE_ALERT_ENDPOINT_FOR_MINUTES: "0",
        // Both fail at once: each is among the other's "others", which must still count healthy.
        HOOKLINE_ALERT_HEALTHY_SUCCESS_PERCENT: "50",
        ...(kind === "postgres"
          ? { DATABASE_URL: TEST_DATABASE_URL, HOOKLINE_PG_SCHEMA: schema }
          : {}),
      },
      overrides: { clock },
    });
    const hl = h;
    const app = await hl.api<{ id: string }>("POST", "/api/v1/app", { name: "Acme" });
    const appId = app.body.id;
    const endpoint = async (url: string) => {
      const ep = await hl.api<{ id: string }>("POST", `/api/v1/app/${appId}/endpoint`, { url });
      expect(ep.status).toBe(201);
      return ep.body.id;
    };
    const good = [
      await endpoint(healthy.url("/a")),
      await endpoint(healthy.url("/b")),
      await endpoint(healthy.url("/c")),
    ];
    receivers.push(await flaky(), await flaky());
    const disabled = await endpoint(receivers[0]!.url("/disabled"));
    const deleted = await endpoint(receivers[1]!.url("/deleted"));

    /** Waits for an engine event, moving the clock on (PostgreSQL polls on the injected clock). */
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
    const attempts = (id: string) =>
      hl.events.filter((e) => e.type === "delivery" && e.endpointId === id && e.attempt).length;
    /** Messages to every endpoint until each of `to` made ten more attempts. */
    const traffic = async (to: string[]) => {
      const from = new Map(to.map((id) => [id, attempts(id)]));
      const enough = () => to.every((id) => attempts(id) >= from.get(id)! + 10);
      for (let i = 0; !enough(); i++) {
        const msg = await post(hl, appId, { i });
        for (const ep of good) await waitFor(deliveryOf(msg, "succeeded", ep));
      }
    };
    const tick = async () => {
      clock.advance(TICK);
      await hl.hookline.observability.evaluator.tick();
    };
    const alertsOf = async (id: string) => {
      const { body } = await hl.api<Alerts>("GET", "/api/v1/alerts");
      const of = (list: Alert[]) =>
        list.filter((a) => a.rule === "endpoint_failing" && a.endpointId === id);
      return { firing: of(body.firing), resolved: of(body.resolved) };
    };

    await tick(); // the first sample, which the window's rates start from
    await traffic([disabled, deleted]);
    await tick();
    const [before] = (await alertsOf(disabled)).firing;
    expect(before?.summary).toContain("succeeds on");
    expect((await alertsOf(deleted)).firing).toHaveLength(1);
    expect(hl.events.some((e) => e.type === "circuit")).toBe(false);

    // Disabled, and deleted: resolved at the next evaluation, with the attempts still in the window.
    await hl.svix.endpoint.patch(appId, disabled, { disabled: true });
    expect((await hl.api("DELETE", `/api/v1/app/${appId}/endpoint/${deleted}`)).status).toBe(204);
    await tick();
    const off = await alertsOf(disabled);
    expect(off.firing).toEqual([]);
    expect(off.resolved.map((a) => a.id)).toEqual([before!.id]);
    expect(off.resolved[0]!.summary).toMatch(/; resolved: endpoint disabled$/);
    const gone = await alertsOf(deleted);
    expect(gone.firing).toEqual([]);
    expect(gone.resolved[0]!.summary).toMatch(/; resolved: endpoint deleted$/);

    // Enabled again, it is judged on its attempts since: none yet, so nothing fires…
    await hl.svix.endpoint.patch(appId, disabled, { disabled: false });
    await tick();
    expect((await alertsOf(disabled)).firing).toEqual([]);
    // …until it has failed ten more times, still failing: a new alert fires.
    await traffic([disabled]);
    await tick();
    const again = await alertsOf(disabled);
    expect(again.firing).toHaveLength(1);
    expect(again.firing[0]!.id).not.toBe(before!.id);
    expect(again.firing[0]!.summary).not.toContain("resolved");
  });
});
