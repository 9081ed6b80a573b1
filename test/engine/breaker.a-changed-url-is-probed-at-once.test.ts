/**
 * A customer whose endpoint's circuit opened fixes its URL (or adds the header its receiver asks
 * for). The circuit learned what the old URL answered, which says nothing of the new one, yet its
 * next probe stayed where it was, up to an hour off, and the customer waited that long. A change
 * of URL or custom headers now brings the probe forward to the change: the probe goes at once,
 * and the deliveries held for it follow through half-open. Headers written again as they were
 * are no change: they brought the probe forward too, at every write of a tool that sets them.
 */
import { afterEach, describe, expect, it } from "vitest";
import { deliveryOf, startHookline, type TestHookline } from "../support/hookline.js";
import { dropSchema, freshSchemaName, TEST_DATABASE_URL } from "../support/postgres.js";
import { Receiver } from "../support/receiver.js";

const TEN_MINUTES = 10 * 60_000;

describe.each(["sqlite", "postgres"] as const)(
  "on %s, an endpoint whose circuit is open",
  (kind) => {
    let h: TestHookline;
    let rx: Receiver;
    let schema: string | null = null;
    afterEach(async () => {
      await h.stop();
      await rx.close();
      if (schema) await dropSchema(schema);
    });

    const start = async () => {
      schema = kind === "postgres" ? freshSchemaName() : null;
      h = await startHookline({
        env: schema ? { DATABASE_URL: TEST_DATABASE_URL, HOOKLINE_PG_SCHEMA: schema } : {},
        overrides: { breaker: { consecutiveFailures: 2, probeDelayMs: TEN_MINUTES } },
      });
      rx = await Receiver.start((req) =>
        req.path === "/good" ? { status: 200 } : { status: 500, body: "wrong place" },
      );
    };

    /** An endpoint at /bad whose two messages failed and opened its circuit, probe 10 min off. */
    const opened = async () => {
      const app = await h.svix.application.create({ name: "Acme" });
      const ep = await h.svix.endpoint.create(app.id, { url: rx.url("/bad") });
      const open = h.waitFor((e) => e.type === "circuit" && e.transition.to === "open");
      const sent = [];
      for (let i = 0; i < 2; i++) {
        sent.push(await h.svix.message.create(app.id, { eventType: "order.paid", payload: { i } }));
      }
      await open;
      // Both failures recorded and their retries stored: what the change moves is in the store.
      for (const msg of sent) await h.waitFor(deliveryOf(msg.id, "pending"));
      const path = `/api/v1/app/${app.id}/endpoint/${ep.id}`;
      const circuit = await h.api<{ state: string; nextProbeAt: string }>("GET", `${path}/circuit`);
      expect(circuit.body.state).toBe("open");
      expect(Date.parse(circuit.body.nextProbeAt) - Date.now()).toBeGreaterThan(TEN_MINUTES / 2);
      return { path };
    };

    it("probes the new URL at once, and the held deliveries follow", async () => {
      await start();
      const { path } = await opened();
      expect((await h.api("PATCH", path, { url: rx.url("/good") })).status).toBe(200);

      await expect.poll(() => rx.on("/good").length, { timeout: 15_000 }).toBe(2);
      const circuit = await h.api<{ state: string }>("GET", `${path}/circuit`);
      expect(circuit.body.state).not.toBe("open");
    });

    it("probes at once after its custom headers change too, and not after a description's", async () => {
      await start();
      const { path } = await opened();
      const before = (await h.api<{ nextProbeAt: string }>("GET", `${path}/circuit`)).body;
      expect((await h.api("PATCH", path, { description: "still broken" })).status).toBe(200);
      expect((await h.api<{ nextProbeAt: string }>("GET", `${path}/circuit`)).body).toEqual(before);

      // The receiver takes the old URL once the header it asks for is there.
      rx.behave((req) =>
        req.headers["x-api-key"] === "k" ? { status: 200 } : { status: 401, body: "no key" },
      );
      expect(
        (await h.api("PATCH", `${path}/headers`, { headers: { "x-api-key": "k" } })).status,
      ).toBe(204);
      await expect
        .poll(() => rx.on("/bad").filter((r) => r.headers["x-api-key"] === "k").length, {
          timeout: 15_000,
        })
        .toBe(2);
    });

    it("leaves the probe where it is when its headers are written as they are", async () => {
      await start();
      const { path } = await opened();
      const before = (await h.api<{ nextProbeAt: string }>("GET", `${path}/circuit`)).body;
      // What a tool setting an endpoint's headers again, unchanged, sends: no change to judge by.
      expect((await h.api("PUT", `${path}/headers`, { headers: {} })).status).toBe(204);
      const removed = { headers: {}, deleteHeaders: ["x-not-there"] };
      expect((await h.api("PATCH", `${path}/headers`, removed)).status).toBe(204);
      expect((await h.api<{ nextProbeAt: string }>("GET", `${path}/circuit`)).body).toEqual(before);

      // Set (a change: probed at once, and failing), then set again under another spelling of its
      // name, which changes nothing sent.
      const set = { headers: { "X-Api-Key": "k" } };
      expect((await h.api("PATCH", `${path}/headers`, set)).status).toBe(204);
      await h.waitFor(
        (e) => e.type === "circuit" && e.transition.reason.startsWith("probe failed"),
      );
      const after = (await h.api<{ nextProbeAt: string }>("GET", `${path}/circuit`)).body;
      const respelt = { headers: { "x-api-key": "k" } };
      expect((await h.api("PUT", `${path}/headers`, respelt)).status).toBe(204);
      expect((await h.api<{ nextProbeAt: string }>("GET", `${path}/circuit`)).body).toEqual(after);
    });
  },
);
