/**
 * Two workers sharing PostgreSQL. Worker A drains a backlog for four endpoints alone, so it owns
 * all four; its claims are slow (a busy database), so one is always running. Worker B joins: A
 * must hand over its excess two within a few heartbeats, while its claims keep running, and
 * hand over no more than that, even while B's first claims (slow too) have not taken them yet.
 * No endpoint ever has more requests at once than its limit.
 */
import { afterEach, describe, expect, it } from "vitest";
import { systemClock } from "../../src/clock.js";
import { DeliveryEngine } from "../../src/engine/engine.js";
import { HttpSender } from "../../src/engine/sender.js";
import type { Store } from "../../src/store/port.js";
import { PostgresStore } from "../../src/store/postgres/store.js";
import { accept, anApplication, anEndpoint } from "../store/behaviour/fixtures.js";
import { dropSchema, freshSchemaName, TEST_DATABASE_URL } from "../support/postgres.js";
import { fleetWorkerSettings } from "../support/fleet-worker.js";
import { withOverrides } from "../support/overrides.js";
import { Receiver } from "../support/receiver.js";

const LIMIT = 10;
const ENDPOINTS = ["a", "b", "c", "d"];
const PER_ENDPOINT = 1_000;
const HEARTBEAT_MS = 100;
const CLAIM_MS = 150;

describe("a worker that joins a busy one", () => {
  const schema = freshSchemaName();
  let store: PostgresStore;
  let rx: Receiver;
  const engines: DeliveryEngine[] = [];
  const senders: HttpSender[] = [];

  afterEach(async () => {
    for (const e of engines) await e.stop();
    for (const s of senders) await s.close();
    await store.close();
    await rx.close();
    await dropSchema(schema);
  });

  /** The shared store, with every claim taking CLAIM_MS longer: claims follow one another. */
  const slowClaims = (): Store =>
    withOverrides<Store>(store, {
      claimDue: async (req) => {
        await new Promise((r) => setTimeout(r, CLAIM_MS));
        return store.claimDue(req);
      },
      scanDue: async (req) => {
        await new Promise((r) => setTimeout(r, CLAIM_MS));
        return store.scanDue(req);
      },
    });

  const worker = (name: string) => {
    const sender = new HttpSender({ refusePrivateTargets: false });
    senders.push(sender);
    // Each worker's requests are told apart by a header of its own.
    const tagged = {
      send: (req: Parameters<HttpSender["send"]>[0]) =>
        sender.send({ ...req, headers: { ...req.headers, "x-worker": name } }),
      close: () => sender.close(),
    };
    const engine = new DeliveryEngine({
      store: slowClaims(),
      sender: tagged,
      clock: systemClock,
      random: () => 0.5,
      settings: fleetWorkerSettings({
        concurrencyLimit: LIMIT,
        heartbeatMs: HEARTBEAT_MS,
        deadAfterMs: 3_000,
      }),
    });
    engines.push(engine);
    return engine;
  };

  it("gets its share within a few heartbeats, and no endpoint exceeds its limit", async () => {
    store = await PostgresStore.open({ connectionString: TEST_DATABASE_URL, schema, poolSize: 8 });
    rx = await Receiver.start(() => ({ status: 200, delayMs: 20 }));
    const app = await store.createApplication(anApplication());
    for (const name of ENDPOINTS) {
      await store.createEndpoint(anEndpoint(app.id, { url: rx.url(`/${name}`) }));
    }
    const now = Date.now();
    for (let i = 0; i < PER_ENDPOINT; i++) {
      await accept(store, app.id, { now, payload: Buffer.from(`{"i":${i}}`) });
    }

    const a = worker("a");
    await a.start();
    // A owns every endpoint once it has sent to each.
    await expect
      .poll(() => new Set(rx.requests.map((r) => r.path)).size, { timeout: 10_000 })
      .toBe(ENDPOINTS.length);

    const b = worker("b");
    await b.start();
    const joinedAt = Date.now();
    const pathsOf = (name: string, since: number) =>
      new Set(
        rx.requests
          .filter((r) => r.headers["x-worker"] === name && r.at >= since)
          .map((r) => r.path),
      );
    await expect.poll(() => pathsOf("b", joinedAt).size, { timeout: 20 * HEARTBEAT_MS }).toBe(2);
    const settledAt = Date.now();
    expect(rx.requests.length).toBeLessThan(ENDPOINTS.length * PER_ENDPOINT);

    // Settled: each keeps two, and A went on sending to its two all along.
    await new Promise((r) => setTimeout(r, 10 * HEARTBEAT_MS));
    const split = `A sent to ${[...pathsOf("a", settledAt)]}, B to ${[...pathsOf("b", settledAt)]}`;
    expect(pathsOf("a", settledAt).size, split).toBe(2);
    expect(pathsOf("b", settledAt).size, split).toBe(2);

    await rx.waitFor(ENDPOINTS.length * PER_ENDPOINT, undefined, 60_000);
    for (const name of ENDPOINTS) expect(rx.maxConcurrentOn(`/${name}`)).toBeLessThanOrEqual(LIMIT);
  }, 90_000);
});
