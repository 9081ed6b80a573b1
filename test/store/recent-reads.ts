/**
 * The reads of recent history: an endpoint's attempt charts and message counts (the endpoint
 * pages, refreshed while they are open) and lists of messages and attempts after a time, for the
 * tests that ask each adapter how its statements read them. History grows with every day hookline runs: a read of
 * the last hour that walks all of it costs more every day.
 */
import { expect } from "vitest";
import { firstIdAt } from "../../src/ids.js";
import type { Store } from "../../src/store/port.js";
import {
  accept,
  anAttempt,
  claimAll,
  HOUR,
  MINUTE,
  outcomeFor,
  seedApp,
} from "./behaviour/fixtures.js";

const BASE = Date.UTC(2040, 0, 1);

let made = 0;

/**
 * An id of exactly `at`'s time, so that the window's edges are tested. Not newId's: its ids only
 * grow, so one made at a later time than any before would carry every later id in this worker
 * (tests share it) to that time.
 */
function idAt(prefix: "msg" | "atmpt", at: number): string {
  const first = firstIdAt(prefix, at);
  const n = String(++made);
  return first.slice(0, first.length - n.length) + n;
}

/** When the recent window starts: a day after the first messages. */
export const SINCE = BASE + 24 * HOUR;

/**
 * An application whose endpoint has messages and attempts a day old and in the window, one at
 * its very start and one a millisecond later.
 */
export async function anEndpointWithHistory(
  store: Store,
): Promise<{ appId: string; endpointId: string }> {
  const { app, endpoints } = await seedApp(store);
  for (const at of [BASE, BASE + MINUTE, SINCE, SINCE + 1, SINCE + MINUTE]) {
    // Made at their time, as the API and the engine make them.
    await accept(store, app.id, { id: idAt("msg", at), now: at });
    const [delivery] = await claimAll(store, at);
    await store.recordAttempts([
      outcomeFor(delivery!, {
        at,
        attempt: anAttempt(at, { id: idAt("atmpt", at) }),
        next: { kind: "succeeded" },
      }),
    ]);
  }
  return { appId: app.id, endpointId: endpoints[0]!.id };
}

/** Reads the endpoint's attempt buckets since SINCE, and checks they hold the window's attempts. */
export async function readRecentBuckets(store: Store, endpointId: string): Promise<void> {
  const buckets = await store.attemptBuckets({ endpointId, since: SINCE, bucketMs: HOUR });
  expect(buckets.map((b) => b.attempts)).toEqual([3]);
}

/**
 * Lists the application's messages, the endpoint's messages and its attempts created after
 * SINCE, in both orders, and checks each holds the two made after it.
 */
export async function readListsAfter(
  store: Store,
  ids: { appId: string; endpointId: string },
): Promise<void> {
  for (const order of ["ascending", "descending"] as const) {
    const q = { limit: 10, order, after: SINCE };
    const messages = await store.listMessages(ids.appId, q);
    expect(messages.data.map((m) => m.createdAt).sort()).toEqual([SINCE + 1, SINCE + MINUTE]);
    const sent = await store.listEndpointMessages({ ...q, ...ids });
    expect(sent.data.map((m) => m.message.createdAt).sort()).toEqual([SINCE + 1, SINCE + MINUTE]);
    const attempts = await store.listAttempts({ ...q, ...ids });
    expect(attempts.data.map((a) => a.at).sort()).toEqual([SINCE + 1, SINCE + MINUTE]);
  }
}

/** Counts the endpoint's messages made since SINCE by state, and checks it counts the window's. */
export async function readRecentStates(
  store: Store,
  ids: { appId: string; endpointId: string },
): Promise<void> {
  const states = await store.endpointMessageStates({ ...ids, since: SINCE });
  expect(states).toEqual({ succeeded: 3, pending: 0, inflight: 0, dead: 0 });
}

/** Whether a statement reads attempts or messages by time. */
export function readsByTime(sql: string): boolean {
  return (
    /^\s*SELECT\b/i.test(sql) &&
    /FROM (attempts|messages)\b/.test(sql) &&
    /\b(at|created_at) (>|>=) /.test(sql)
  );
}
