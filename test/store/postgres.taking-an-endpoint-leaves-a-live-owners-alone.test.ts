/**
 * `coordination.take` (a failure drill keeping its endpoint with its own worker) makes an endpoint
 * the worker's without a due delivery to take it with, under the claim's rules: never from a live
 * owner, nor from a silent one until a reaping has declared it dead, from a reaped one, again by
 * its own owner, and never by a worker that has no row (reaped while it paused). The claims that
 * follow keep to it.
 */
import { expect, it } from "vitest";
import { accept, HOUR, MINUTE, SECOND, seedApp, T0 } from "./behaviour/fixtures.js";
import { useCleanup } from "../support/cleanup.js";
import { aSharedStore, freshSchemaName } from "../support/postgres.js";

const NOW = T0 + HOUR;
const DEAD_BEFORE = NOW - 10 * SECOND;

const cleanup = useCleanup();

it("takes a free or reaped worker's endpoint, never a live or merely silent worker's", async () => {
  const schema = freshSchemaName();
  const store = await aSharedStore(cleanup, schema);
  const { app, endpoints } = await seedApp(store, [{}, {}]);
  const [free, deadOnes] = endpoints.map((e) => e.id) as [string, string];
  const c = store.coordination!;
  await c.register({ id: "wkr_dead", role: "worker", host: "test", now: NOW - MINUTE });
  await c.register({ id: "wkr_a", role: "worker", host: "test", now: NOW });
  await c.register({ id: "wkr_b", role: "worker", host: "test", now: NOW });
  const take = (id: string, endpointId: string, now = NOW) =>
    c.take({ id, endpointId, now, deadBefore: DEAD_BEFORE });

  expect(await take("wkr_a", free)).toBe(true);
  expect(await take("wkr_b", free)).toBe(false);
  expect(await take("wkr_a", free, NOW + SECOND)).toBe(true);
  expect(await take("wkr_gone", free)).toBe(false);

  // A silent worker's endpoint is taken once a reaping has declared it dead, not before (its
  // heartbeat may yet land, and it would go on sending); the same rule as a claim's.
  await c.register({ id: "wkr_c", role: "worker", host: "test", now: NOW });
  expect(await take("wkr_dead", deadOnes, NOW - MINUTE)).toBe(true);
  expect(await take("wkr_c", deadOnes)).toBe(false);
  expect((await c.reap(NOW, DEAD_BEFORE)).workers).toEqual(["wkr_dead"]);
  expect(await take("wkr_c", deadOnes)).toBe(true);

  // B's claims pass over A's endpoint, however due its deliveries are; A's take them.
  await accept(store, app.id, { now: T0 });
  const claim = (worker: string) =>
    store.claimDue({
      now: NOW,
      limit: 100,
      excludeEndpoints: [],
      leaseUntil: NOW + MINUTE,
      worker: { id: worker, deadBefore: DEAD_BEFORE, onContended: () => {} },
    });
  expect((await claim("wkr_b")).map((d) => d.endpointId)).toEqual([]);
  expect((await claim("wkr_a")).map((d) => d.endpointId)).toEqual([free]);
  expect((await claim("wkr_c")).map((d) => d.endpointId)).toEqual([deadOnes]);
});
