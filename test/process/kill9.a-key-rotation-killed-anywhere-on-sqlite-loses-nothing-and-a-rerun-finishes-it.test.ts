/**
 * `hookline keys rotate` killed (the OOM killer, a node going down) at any moment of a rotation on
 * SQLite. docs/security.md has the operator run it with the new key current and the old one in
 * HOOKLINE_ENCRYPTION_OLD_KEYS, and remove the old one once it says done: after a kill, hookline
 * must start with both and show everything as before, and running the command again must finish
 * the rotation, after which hookline starts with the new key alone and still shows everything.
 * The kill points are rows picked by seeded randomness: the command is SIGKILLed as soon as that
 * row is sealed with the new key, wherever its next batch then is (in its transaction or between
 * two, or in the checkpoint that ends a table).
 */
import { join } from "node:path";
import { it } from "vitest";
import { SqliteStore } from "../../src/store/sqlite/store.js";
import { tempDir, useCleanup } from "../support/cleanup.js";
import { killRotationsAtSeededRows, watchSqlite } from "../support/key-rotation.js";

const cleanup = useCleanup();

it("a rotation killed at seeded moments leaves every value readable, and running it again finishes it", async () => {
  const dir = tempDir(cleanup, "hookline-rotate-kill-");
  const file = join(dir, "hookline.db");
  await killRotationsAtSeededRows({
    store: { HOOKLINE_DATA_DIR: dir },
    open: async (cipher) => new SqliteStore({ path: file, synchronous: "normal", cipher }),
    watch: () => watchSqlite(file),
    seeds: [11, 15],
    batchSize: 50,
  });
}, 90_000);
