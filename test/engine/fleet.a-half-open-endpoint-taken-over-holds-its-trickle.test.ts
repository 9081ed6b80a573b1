/**
 * Two workers sharing PostgreSQL: worker A's probe gets through and its endpoint's circuit is
 * half-open, the deliveries the probe held back due at once. A stops cleanly while its trickle is
 * out, hands the endpoint back, and worker B takes it over: B reads the half-open circuit from the
 * store and holds a trickle's worth too, the rest pending in the store, and sends every one of
 * them once the trickle is answered, each once.
 */
import { expect, it } from "vitest";
import { accept, anApplication, anEndpoint } from "../store/behaviour/fixtures.js";
import { useCleanup } from "../support/cleanup.js";
import { fleetWorkerSettings, startFleetWorker } from "../support/fleet-worker.js";
import { adminQuery, aSharedStore, freshSchemaName } from "../support/postgres.js";
import { Receiver } from "../support/receiver.js";

const cleanup = useCleanup();

it("is held a trickle's worth at a time by the worker that takes it over", async () => {
  const schema = freshSchemaName();
  const store = await aSharedStore(cleanup, schema);
  let answerA: () => void = () => {};
  const heldAtA = new Promise<void>((r) => (answerA = r));
  let answerB: () => void = () => {};
  const heldAtB = new Promise<void>((r) => (answerB = r));
  // The first request fails, the probe succeeds; A's trickle is held, then B's.
  const rx = await Receiver.start((_, i) =>
    i === 0
      ? { status: 500 }
      : i === 1
        ? { status: 200 }
        : { status: 200, until: i < 4 ? heldAtA : heldAtB },
  );
  cleanup.push(async () => {
    answerA();
    answerB();
    await rx.close();
  });
  const app = await store.createApplication(
    anApplication({ deliveryPolicy: { retry: { delays: [1], window: 3600 }, timeoutMs: 30_000 } }),
  );
  const ep = await store.createEndpoint(anEndpoint(app.id, { url: rx.url("/hook") }));
  const settings = fleetWorkerSettings({
    concurrencyLimit: 10,
    heartbeatMs: 100,
    deadAfterMs: 10_000,
    breaker: { consecutiveFailures: 1, probeDelayMs: 1_000 },
  });
  // A waits for its trickle's answers as it stops however slow the machine, so it hands back.
  const a = await startFleetWorker(store, { ...settings, shutdownTimeoutMs: 30_000 }, cleanup);
  await accept(store, app.id, { now: Date.now() });
  a.wake();
  await a.events.waitFor((e) => e.type === "circuit" && e.transition.to === "open");
  for (let n = 1; n <= 8; n++) await accept(store, app.id, { now: Date.now() });
  a.wake();
  await rx.waitFor(4);
  expect(a.endpointStatus(ep.id)?.circuit.state).toBe("half-open");

  const b = await startFleetWorker(store, settings, cleanup);
  // A stops with its trickle out, and is answered as it waits for it: it hands the endpoint back.
  const stopping = a.stop();
  answerA();
  await stopping;
  await rx.waitFor(6);

  const states = async () =>
    Object.fromEntries(
      (
        await adminQuery(
          `SELECT state, count(*)::int AS n FROM ${schema}.deliveries GROUP BY state`,
        )
      ).map((r) => [r.state, r.n]),
    );
  expect(b.endpointStatus(ep.id)?.circuit.state).toBe("half-open");
  // The probe and A's trickle delivered, B's trickle out, the rest waiting in the store.
  await expect.poll(states).toEqual({ succeeded: 3, inflight: 2, pending: 4 });
  expect(b.endpointStatus(ep.id)).toMatchObject({ inFlight: 2, queued: 0 });

  answerB();
  await expect.poll(states, { timeout: 20_000 }).toEqual({ succeeded: 9 });
  const sent = rx.requests.map((r) => r.headers["webhook-id"]);
  // The first message twice (failed, then sent again), every other once.
  expect(sent.length).toBe(10);
  expect(new Set(sent).size).toBe(9);
}, 60_000);
