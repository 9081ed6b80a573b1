/**
 * During a silent outage each store ping waits for the query timeout (30 s by default) while the
 * probes that asked for it give up after 2 s. Kubernetes probes every few seconds, and health,
 * readiness and several probers each ask: had each started a ping of its own, they would queue
 * one after another for the pool's connections, which the API's requests need too. Probes asking
 * while a ping is still under way wait for that one.
 */
import { expect, it } from "vitest";
import { checkReady } from "../../src/observability/service.js";
import type { Store } from "../../src/store/port.js";

it("probes asking while the store's ping is unanswered share it, and the next ping starts after it ends", async () => {
  let pings = 0;
  let answer: () => void = () => {};
  // Only the ping is asked of the store here; the rest of it is not reached.
  const silent = {
    ping: () => {
      pings++;
      return new Promise<void>((resolve) => (answer = resolve));
    },
  } as unknown as Store;

  const first = await Promise.all([checkReady(silent), checkReady(silent), checkReady(silent)]);
  expect(first.map((r) => r.ready)).toEqual([false, false, false]);
  // Given up on, the ping is still under way: a later probe waits for it too.
  expect((await checkReady(silent)).ready).toBe(false);
  expect(pings).toBe(1);

  answer();
  await new Promise((r) => setImmediate(r));
  const next = checkReady(silent);
  expect(pings).toBe(2);
  answer();
  expect((await next).ready).toBe(true);
}, 20_000);
