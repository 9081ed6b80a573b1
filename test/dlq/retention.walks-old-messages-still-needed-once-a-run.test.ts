/**
 * Old messages still needed (an endpoint's open records may hold thousands) are walked past once
 * a run: each batch of the run starts where the last one ended, instead of reading them all again
 * on the main thread before every batch.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { RetentionPruner } from "../../src/dlq/retention.js";
import { SqliteStore } from "../../src/store/sqlite/store.js";
import { FakeClock } from "../support/fake-clock.js";
import { accept, claimAll, retried, seedApp, succeeded, T0 } from "../store/behaviour/fixtures.js";

const DAY = 86_400_000;

describe("a retention run", () => {
  let dir: string;
  let store: SqliteStore;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), "hookline-retention-"));
    store = new SqliteStore({ path: join(dir, "hookline.db"), synchronous: "normal" });
  });
  afterEach(async () => {
    await store.close();
    await rm(dir, { recursive: true, force: true });
  });

  it("walks past an old message still needed once, and finds it freed on the next run", async () => {
    const { app } = await seedApp(store);
    const { message: held } = await accept(store, app.id, { now: T0 });
    for (let i = 1; i <= 8; i++) await accept(store, app.id, { now: T0 + i });
    const claimed = await claimAll(store, T0 + 10);
    await store.recordAttempts(
      claimed.map((d) =>
        d.messageId === held.id ? retried(d, T0 + 10, T0 + DAY / 2) : succeeded(d, T0 + 10),
      ),
    );

    // Once the run is past it, the held message is no longer needed (its last attempt older than
    // the period too): this run leaves it.
    const prune = store.pruneExpired.bind(store);
    let calls = 0;
    store.pruneExpired = async (req) => {
      const step = await prune(req);
      if (++calls === 1) {
        const [late] = await claimAll(store, T0 + DAY / 2);
        await store.recordAttempts([succeeded(late!, T0 + DAY / 2)]);
      }
      return step;
    };
    const clock = new FakeClock(T0 + 2 * DAY);
    // A batch of 4 rows is one message a transaction.
    const pruner = new RetentionPruner(store, clock, { retentionMs: DAY, batchSize: 4 });
    expect((await pruner.runOnce()).messages).toBe(8);
    expect(await store.findMessage(app.id, held.id)).not.toBeNull();

    expect((await pruner.runOnce()).messages).toBe(1);
    expect(await store.findMessage(app.id, held.id)).toBeNull();
  });
});
