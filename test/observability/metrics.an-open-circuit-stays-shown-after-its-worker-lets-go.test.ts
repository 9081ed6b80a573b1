/**
 * hookline_circuit_state of an open circuit whose endpoint the engine let go of. On PostgreSQL a
 * worker hands an endpoint back once it has been idle for 10 seconds, open circuit or not: its
 * deliveries wait in the database for the probe, minutes away, and nothing is in flight. The
 * circuit's series went with it, so an alert on open circuits went quiet seconds after the circuit
 * opened, while the receiver was still down. The state is now shown as read from the database at
 * each scrape, as for circuits found open at start, until the circuit closes.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { anEndpoint, post } from "../support/dlq.js";
import { startHookline, type TestHookline } from "../support/hookline.js";
import { circuitStateSeries, scrape } from "../support/metrics.js";
import { dropSchema, freshSchemaName, TEST_DATABASE_URL } from "../support/postgres.js";
import { Receiver } from "../support/receiver.js";

const schema = freshSchemaName();
let rx: Receiver;
let h: TestHookline;
beforeAll(async () => {
  rx = await Receiver.start(() => ({ status: 500 }));
  h = await startHookline({
    env: {
      DATABASE_URL: TEST_DATABASE_URL,
      HOOKLINE_PG_SCHEMA: schema,
      HOOKLINE_WORKER_HEARTBEAT_MS: "200",
    },
    overrides: { breaker: { consecutiveFailures: 2 } },
  });
});
afterAll(async () => {
  await h.stop();
  await rx.close();
  await dropSchema(schema);
});

describe("an open circuit whose endpoint the engine let go of", () => {
  it("is still shown open, until it closes", { timeout: 60_000 }, async () => {
    // The default ladder: the retries wait in the database for the circuit's probe.
    const ep = await anEndpoint(h, rx.url("/down"), { retry: { preset: "default" } });
    await post(h, ep.appId, { n: 1 });
    await post(h, ep.appId, { n: 2 });
    await h.waitFor(
      (e) => e.type === "circuit" && e.endpointId === ep.endpointId && e.transition.to === "open",
    );
    const shown = await scrape(h.url, h.token);
    expect(shown.get(circuitStateSeries(ep.endpointId, "open"))).toBe(1);

    // The worker lets go of the idle endpoint (10 s, checked at each heartbeat).
    const until = Date.now() + 40_000;
    while (h.hookline.engine.endpointStatus(ep.endpointId) !== null) {
      if (Date.now() > until) throw new Error("the worker kept the endpoint");
      await new Promise((r) => setTimeout(r, 200));
    }
    const after = await scrape(h.url, h.token);
    expect(after.get(circuitStateSeries(ep.endpointId, "open"))).toBe(1);
    expect(after.get(circuitStateSeries(ep.endpointId, "closed"))).toBe(0);

    // Closed elsewhere (another worker's probe succeeded): no longer shown.
    const stored = (await h.hookline.store.getCircuit(ep.endpointId))!;
    await h.hookline.store.saveCircuit(
      ep.endpointId,
      { ...stored, state: "closed", nextProbeAt: null },
      null,
    );
    const closed = await scrape(h.url, h.token);
    expect(closed.has(circuitStateSeries(ep.endpointId, "open"))).toBe(false);
  });
});
