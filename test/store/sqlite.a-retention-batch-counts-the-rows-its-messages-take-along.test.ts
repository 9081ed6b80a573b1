/**
 * On SQLite a retention batch holds the writer, and so the API and every delivery, while it runs.
 * Its messages were counted as a quarter of the batch whatever they took along: 125 messages of
 * an application with 50 endpoints and five attempts each, about 37,000 rows, held it for about
 * 450 ms. A batch now stops taking messages once their deliveries and attempts fill it.
 */
import { join } from "node:path";
import { expect, it } from "vitest";
import { SqliteStore } from "../../src/store/sqlite/store.js";
import { tempDir, useCleanup } from "../support/cleanup.js";
import { accept, claimAll, HOUR, seedApp, succeeded, T0 } from "./behaviour/fixtures.js";

const cleanup = useCleanup();
const DAY = 24 * HOUR;
const RETENTION = 30 * DAY;

it("takes fewer messages a batch when each takes many deliveries and attempts along", async () => {
  const path = join(tempDir(cleanup, "hookline-retention-"), "hookline.db");
  const store = new SqliteStore({ path, synchronous: "normal" });
  cleanup.push(() => store.close());
  // Forty endpoints: each message is 81 rows, itself with 40 deliveries and 40 attempts.
  const { app } = await seedApp(
    store,
    Array.from({ length: 40 }, () => ({})),
  );
  for (let i = 0; i < 4; i++) await accept(store, app.id, { now: T0 + i });
  const claimed = await claimAll(store, T0 + 4);
  expect(claimed).toHaveLength(160);
  await store.recordAttempts(claimed.map((d) => succeeded(d, T0 + 4)));

  // A batch of 20 reads up to five messages, and holds 160 rows of them: one such message.
  const now = T0 + RETENTION + DAY;
  let messagesFrom: number | undefined;
  const perBatch: number[] = [];
  for (;;) {
    const step = await store.pruneExpired({
      now,
      retentionMs: RETENTION,
      batchSize: 20,
      messagesFrom,
    });
    messagesFrom = step.messagesReached ?? undefined;
    if (step.done) break;
    perBatch.push(step.messages);
  }
  expect(perBatch).toEqual([1, 1, 1, 1]);
  expect((await store.listMessages(app.id, { limit: 10 })).data).toEqual([]);
  expect((await store.listAttempts({ appId: app.id, limit: 10 })).data).toEqual([]);

  // A message larger than a whole batch still goes, alone.
  await accept(store, app.id, { now: T0 + 5 });
  await store.recordAttempts((await claimAll(store, T0 + 5)).map((d) => succeeded(d, T0 + 5)));
  const alone = await store.pruneExpired({ now, retentionMs: RETENTION, batchSize: 1 });
  expect(alone.messages).toBe(1);
  expect((await store.listMessages(app.id, { limit: 10 })).data).toEqual([]);
});
