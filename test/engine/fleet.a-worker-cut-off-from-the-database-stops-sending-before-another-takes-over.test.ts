/**
 * Two workers sharing PostgreSQL; worker A owns the one endpoint and holds a queue of its
 * deliveries when it loses the database (a loopback proxy in front of the shared server is cut),
 * while worker B still reaches it. B declares A dead once A's heartbeat is the dead-after time
 * old and sends A's deliveries. A, which cannot learn that, must have stopped starting requests
 * early enough for the last ones to have been answered by then: it may have been declared dead,
 * so what it holds may be another's. Otherwise both send the same deliveries to the endpoint at
 * once, past its concurrency limit. (A worker that stopped starting at the dead-after time itself
 * still had a full set of requests in flight when B began.)
 */
import { expect, it } from "vitest";
import { systemClock } from "../../src/clock.js";
import { DeliveryEngine } from "../../src/engine/engine.js";
import { HttpSender } from "../../src/engine/sender.js";
import type { Store } from "../../src/store/port.js";
import { accept, anApplication, anEndpoint } from "../store/behaviour/fixtures.js";
import { fleetWorkerSettings } from "../support/fleet-worker.js";
import { useCleanup } from "../support/cleanup.js";
import { storesAroundAProxy } from "../support/postgres.js";
import { Receiver } from "../support/receiver.js";

const LIMIT = 5;
const MESSAGES = 150;
const DEAD_AFTER_MS = 1_500;

const cleanup = useCleanup({ ignoreFailures: true });

it("a worker cut off from the database starts no request once the others may have declared it dead", async () => {
  const { direct, proxied, proxy } = await storesAroundAProxy(cleanup, 1_000);
  // Slow answers: A's queue lasts well past the dead-after time, and each of its requests is in
  // flight long enough to meet B's first were A to start requests until B takes over.
  const rx = await Receiver.start(() => ({ status: 200, delayMs: 400 }));
  cleanup.push(() => rx.close());

  const worker = async (name: string, store: Store) => {
    const sender = new HttpSender({ refusePrivateTargets: false });
    // Each worker's requests are told apart by a header of its own.
    const tagged = {
      send: (req: Parameters<HttpSender["send"]>[0]) =>
        sender.send({ ...req, headers: { ...req.headers, "x-worker": name } }),
      close: () => sender.close(),
    };
    const engine = new DeliveryEngine({
      store,
      sender: tagged,
      clock: systemClock,
      random: () => 0.5,
      settings: fleetWorkerSettings({
        concurrencyLimit: LIMIT,
        heartbeatMs: 100,
        deadAfterMs: DEAD_AFTER_MS,
      }),
    });
    cleanup.push(
      () => sender.close(),
      () => engine.stop(),
    );
    await engine.start();
    return engine;
  };

  const app = await direct.createApplication(anApplication());
  await direct.createEndpoint(anEndpoint(app.id, { url: rx.url("/e") }));
  const now = Date.now();
  for (let i = 0; i < MESSAGES; i++) {
    await accept(direct, app.id, { now, payload: Buffer.from(`{"i":${i}}`) });
  }
  await worker("a", proxied);
  await rx.waitFor(LIMIT);
  await worker("b", direct);

  await proxy.cut();
  const cutAt = Date.now();
  const from = (name: string) => rx.requests.filter((r) => r.headers["x-worker"] === name);
  await expect.poll(() => from("b").length, { timeout: 20_000 }).toBeGreaterThan(0);
  // Long enough for A to have sent its whole queue, were it still sending.
  await new Promise((r) => setTimeout(r, 3_000));

  const lastOfA = Math.max(...from("a").map((r) => r.at));
  const firstOfB = Math.min(...from("b").map((r) => r.at));
  expect(lastOfA - cutAt).toBeLessThan(DEAD_AFTER_MS);
  expect(lastOfA).toBeLessThan(firstOfB);
  expect(rx.maxConcurrentOn("/e")).toBeLessThanOrEqual(LIMIT);
  await proxy.open();
}, 60_000);
