/**
 * docs/delivery.md: a change of an endpoint's URL or custom headers while its circuit is open
 * brings the next probe forward. An operational webhook endpoint had that for its URL only: an
 * operator who added the header its receiver asks for (PUT …/operational-webhook/endpoint/{id}/
 * headers) still waited for the probe, up to an hour, for hookline's own events, while the same
 * change on an application's endpoint was probed at once. Headers written again as they are leave
 * the probe where it is, as on an application's endpoint.
 */
import { afterEach, describe, expect, it } from "vitest";
import { startHookline, type TestHookline } from "../support/hookline.js";
import { dropSchema, freshSchemaName, TEST_DATABASE_URL } from "../support/postgres.js";
import { Receiver } from "../support/receiver.js";

const TEN_MINUTES = 10 * 60_000;

describe.each(["sqlite", "postgres"] as const)(
  "on %s, an operational webhook endpoint whose circuit is open",
  (kind) => {
    let h: TestHookline;
    let ops: Receiver;
    let schema: string | null = null;
    afterEach(async () => {
      await h.stop();
      await ops.close();
      if (schema) await dropSchema(schema);
    });

    it("is probed at once after its custom headers change, not after they are written again", async () => {
      schema = kind === "postgres" ? freshSchemaName() : null;
      h = await startHookline({
        env: schema ? { DATABASE_URL: TEST_DATABASE_URL, HOOKLINE_PG_SCHEMA: schema } : {},
        overrides: { breaker: { consecutiveFailures: 2, probeDelayMs: TEN_MINUTES } },
      });
      // The operator's receiver wants a key it is not yet sent.
      ops = await Receiver.start((req) =>
        req.headers["x-api-key"] === "k" ? { status: 204 } : { status: 401, body: "no key" },
      );
      const op = await h.svix.operationalWebhookEndpoint.create({
        url: ops.url("/ops"),
        filterTypes: ["endpoint.disabled"],
      });
      await h.svix.operationalWebhookEndpoint.updateHeaders(op.id, { headers: { "x-team": "a" } });

      // Two events for it, both refused: its circuit opens, the next probe 10 minutes off.
      const open = h.waitFor(
        (e) => e.type === "circuit" && e.endpointId === op.id && e.transition.to === "open",
      );
      const app = await h.svix.application.create({ name: "Acme" });
      for (let i = 0; i < 2; i++) {
        const ep = await h.svix.endpoint.create(app.id, { url: "https://example.com/hook" });
        await h.svix.endpoint.patch(app.id, ep.id, { disabled: true });
      }
      await open;
      // Both failures recorded and their retries stored: what the change moves is in the store.
      // (On a loaded machine the second outcome can be written after the circuit's opening is
      // announced; a change before it would move nothing of it.)
      const retrying = () =>
        new Set(
          h.events
            .filter((e) => e.type === "delivery" && e.endpointId === op.id && e.state === "pending")
            .map((e) => (e as { messageId: string }).messageId),
        ).size;
      await expect.poll(retrying, { timeout: 15_000 }).toBe(2);
      const opApp = (await h.svix.application.get("hookline-operational")).id;
      const circuitPath = `/api/v1/app/${opApp}/endpoint/${op.id}/circuit`;
      const circuit = async () =>
        (await h.api<{ state: string; nextProbeAt: string }>("GET", circuitPath)).body;
      const before = await circuit();
      expect(before.state).toBe("open");
      expect(Date.parse(before.nextProbeAt) - Date.now()).toBeGreaterThan(TEN_MINUTES / 2);

      // Written again as they are, under another spelling: nothing new, the probe stays.
      const headersPath = `/api/v1/operational-webhook/endpoint/${op.id}/headers`;
      const same = { headers: { "X-Team": "a" } };
      expect((await h.api("PUT", headersPath, same)).status).toBe(204);
      expect(await circuit()).toEqual(before);

      // The key added: probed at once, and both events follow with it.
      const keyed = { headers: { "x-team": "a", "x-api-key": "k" } };
      expect((await h.api("PUT", headersPath, keyed)).status).toBe(204);
      await expect
        .poll(() => ops.on("/ops").filter((r) => r.headers["x-api-key"] === "k").length, {
          timeout: 15_000,
        })
        .toBe(2);
    }, 30_000);
  },
);
