/**
 * The reads of an endpoint's recent history (the attempt charts of the endpoint pages, refreshed
 * while they are open), for the tests that ask each adapter how its statements read them. An
 * endpoint's attempts grow with every day it runs: a read of the last hour that walks all of
 * them costs more every day.
 */
import { expect } from "vitest";
import { newId } from "../../src/ids.js";
import type { Store } from "../../src/store/port.js";
import {
  accept,
  anAttempt,
  claimAll,
  HOUR,
  MINUTE,
  outcomeFor,
  seedApp,
  T0,
} from "./behaviour/fixtures.js";

/** When the recent window starts: a day after the endpoint's first attempts. */
export const SINCE = T0 + 24 * HOUR;

/** An endpoint with attempts a day old and attempts in the window, one made at its very start. */
export async function anEndpointWithHistory(store: Store): Promise<string> {
  const { app, endpoints } = await seedApp(store);
  for (const at of [T0, T0 + MINUTE, SINCE, SINCE + MINUTE]) {
    await accept(store, app.id, { now: at });
    const [delivery] = await claimAll(store, at);
    await store.recordAttempts([
      outcomeFor(delivery!, {
        at,
        // Made at the attempt's time, as the engine makes it.
        attempt: anAttempt(at, { id: newId("atmpt", at) }),
        next: { kind: "succeeded" },
      }),
    ]);
  }
  return endpoints[0]!.id;
}

/** Reads the endpoint's attempt buckets since SINCE, and checks they hold the window's attempts. */
export async function readRecent(store: Store, endpointId: string): Promise<void> {
  const buckets = await store.attemptBuckets({ endpointId, since: SINCE, bucketMs: HOUR });
  expect(buckets.map((b) => b.attempts)).toEqual([2]);
}

/** Whether a statement reads attempts by time. */
export function readsAttemptsByTime(sql: string): boolean {
  return /^\s*SELECT\b/i.test(sql) && /FROM attempts\b/.test(sql) && /\bat >=/.test(sql);
}
