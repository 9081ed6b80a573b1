/**
 * An outcome the store refuses for what it holds (a value the database cannot take) used to be
 * retried with its whole batch forever: no attempt of any endpoint was recorded after it, and
 * shutdown waited on it. Now the batch is written in halves down to the culprit, which is written
 * again without the receiver's text, and left out (reported) if even that is refused. A store
 * that is away is still waited for, whole batch and all.
 */
import { describe, expect, it } from "vitest";
import { StoreUnavailableError } from "../../src/errors.js";
import { OutcomeWriter } from "../../src/engine/outcome-writer.js";
import { newId } from "../../src/ids.js";
import type { DeliveryOutcome, RecordedOutcomes, Store } from "../../src/store/port.js";

function outcome(snippet = "ok"): DeliveryOutcome {
  const at = Date.now();
  return {
    deliveryId: newId("dlv"),
    endpointId: "ep_1",
    messageId: newId("msg"),
    appId: "app_1",
    at,
    attempt: {
      id: newId("atmpt"),
      at,
      trigger: "first",
      url: "https://example.com/hook",
      status: 500,
      error: null,
      errorDetail: null,
      durationMs: 3,
      responseSnippet: snippet,
      outcome: "retryable",
    },
    signatureHeaders: {},
    next: { kind: "retry", at: at + 5_000, delayMs: 5_000 },
    retryAfter: null,
    disableEndpoint: null,
  };
}

/** An error as PostgreSQL's driver gives it, with its SQLSTATE. */
function pgError(message: string, code: string): Error {
  return Object.assign(new Error(message), { code });
}

/**
 * A store that refuses any batch holding `refuses` (with a data exception), and fails its first
 * `awayFor` calls with `away` (by default: unavailable).
 */
function storeThat(
  refuses: (o: DeliveryOutcome) => boolean,
  awayFor = 0,
  away: () => Error = () => new StoreUnavailableError("the database is restarting"),
) {
  const calls: number[] = [];
  const store = {
    recordAttempts(batch: readonly DeliveryOutcome[]): Promise<RecordedOutcomes> {
      calls.push(batch.length);
      if (calls.length <= awayFor) return Promise.reject(away());
      if (batch.some(refuses)) {
        return Promise.reject(pgError("invalid byte sequence for encoding UTF8", "22021"));
      }
      return Promise.resolve({ kept: batch.map((o) => o.deliveryId), changes: [] });
    },
  } as unknown as Store;
  return { store, calls };
}

function writerFor(store: Store) {
  const committed: DeliveryOutcome[] = [];
  const refused: DeliveryOutcome[] = [];
  const writer = new OutcomeWriter(store, {
    maxBatch: 512,
    windowMs: 0,
    retryDelayMs: 1,
    onCommitted: (kept) => committed.push(...kept),
    onError: () => {},
    onRefused: (o) => refused.push(o),
  });
  return { writer, committed, refused };
}

describe("the outcome writer, when the store refuses an outcome", () => {
  it("records every other outcome, and that one without the receiver's text", async () => {
    const { store } = storeThat((o) => o.attempt?.responseSnippet.includes("\0") ?? false);
    const { writer, committed, refused } = writerFor(store);
    const good = Array.from({ length: 9 }, () => outcome());
    const bad = outcome("oops\0");
    for (const o of [...good.slice(0, 4), bad, ...good.slice(4)]) writer.push(o);
    await writer.flush();

    expect(refused).toEqual([]);
    expect(committed.map((o) => o.deliveryId).sort()).toEqual(
      [...good, bad].map((o) => o.deliveryId).sort(),
    );
    const written = committed.find((o) => o.deliveryId === bad.deliveryId)!;
    expect(written.attempt!.responseSnippet).toMatch(/not recorded/);
    expect(written.attempt!.status).toBe(500);
  });

  it("leaves out, and reports, one it refuses even without that text", async () => {
    const bad = outcome();
    const { store } = storeThat((o) => o.deliveryId === bad.deliveryId);
    const { writer, committed, refused } = writerFor(store);
    const good = [outcome(), outcome(), outcome()];
    for (const o of [bad, ...good]) writer.push(o);
    await writer.flush();

    expect(refused.map((o) => o.deliveryId)).toEqual([bad.deliveryId]);
    expect(committed.map((o) => o.deliveryId)).toEqual(good.map((o) => o.deliveryId));
  });

  it.each([
    ["is away", () => new StoreUnavailableError("the database is restarting")],
    ["times out", () => pgError("canceling statement due to statement timeout", "57014")],
    ["refuses the role", () => pgError("permission denied for table attempts", "42501")],
  ])("still waits, with the whole batch, for a store that %s", async (_why, away) => {
    const { store, calls } = storeThat(() => false, 3, away);
    const { writer, committed, refused } = writerFor(store);
    const all = [outcome(), outcome(), outcome()];
    for (const o of all) writer.push(o);
    await writer.flush();

    expect(calls).toEqual([3, 3, 3, 3]);
    expect(committed).toHaveLength(3);
    expect(refused).toEqual([]);
  });
});
