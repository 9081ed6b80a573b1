/**
 * The outcome writer's group commit: outcomes that finish within its window share one
 * transaction, however many turns of the event loop apart they arrive; a full batch does not wait
 * for the window; with no window, each turn's outcomes commit on their own. On a real SQLite
 * store; the outcomes name deliveries it does not hold, which it records as nothing to do (so
 * a commit's size is read from what the writer handed the store, not from what it kept).
 */
import { join } from "node:path";
import { beforeEach, describe, expect, it, vi } from "vitest";
import { OutcomeWriter } from "../../src/engine/outcome-writer.js";
import { newId } from "../../src/ids.js";
import type { DeliveryOutcome } from "../../src/store/port.js";
import { SqliteStore } from "../../src/store/sqlite/store.js";
import { tempDir, useCleanup } from "../support/cleanup.js";

const nextTurn = () => new Promise<void>((r) => setImmediate(r));

function outcome(): DeliveryOutcome {
  return {
    deliveryId: newId("dlv"),
    endpointId: newId("ep"),
    messageId: newId("msg"),
    appId: newId("app"),
    at: Date.now(),
    attempt: null,
    signatureHeaders: {},
    next: { kind: "succeeded" },
    retryAfter: null,
    disableEndpoint: null,
  };
}

describe("the outcome writer", () => {
  const cleanup = useCleanup();
  let store: SqliteStore;
  beforeEach(() => {
    const dir = tempDir(cleanup, "hookline-writer-");
    store = new SqliteStore({ path: join(dir, "hookline.db"), synchronous: "normal" });
    cleanup.push(() => store.close());
  });

  /** A writer whose commits are listed by size, and a promise for its `n`-th commit. */
  function writer(options: { maxBatch: number; windowMs: number }) {
    const commits: number[] = [];
    const waiting: { n: number; done: () => void }[] = [];
    const recorded = vi.spyOn(store, "recordAttempts");
    const w = new OutcomeWriter(store, {
      ...options,
      retryDelayMs: 10,
      onCommitted: () => {
        commits.push(recorded.mock.calls[commits.length]![0].length);
        for (const x of waiting) if (commits.length >= x.n) x.done();
      },
      onError: (err) => {
        throw err;
      },
      onRefused: (_o, err) => {
        throw err;
      },
    });
    const committed = (n: number) =>
      commits.length >= n
        ? Promise.resolve()
        : new Promise<void>((done) => waiting.push({ n, done }));
    return { w, commits, committed };
  }

  it("commits outcomes from several turns of the loop together within its window", async () => {
    // A window far longer than the few turns between the pushes, so a busy machine cannot split them.
    const { w, commits, committed } = writer({ maxBatch: 512, windowMs: 500 });
    w.push(outcome());
    await nextTurn();
    w.push(outcome());
    await nextTurn();
    await nextTurn();
    w.push(outcome());
    expect(commits).toEqual([]);
    await committed(1);
    expect(commits).toEqual([3]);
    expect(w.pending).toBe(0);
  });

  it("does not hold a full batch for the window", async () => {
    // Were the batch held for the window, the test would time out long before it passed.
    const { w, commits, committed } = writer({ maxBatch: 2, windowMs: 60_000 });
    w.push(outcome());
    w.push(outcome());
    await committed(1);
    expect(commits).toEqual([2]);
  });

  it("with no window, commits each turn's outcomes on their own", async () => {
    const { w, commits, committed } = writer({ maxBatch: 512, windowMs: 0 });
    w.push(outcome());
    w.push(outcome());
    await committed(1);
    w.push(outcome());
    await committed(2);
    expect(commits).toEqual([2, 1]);
  });
});
