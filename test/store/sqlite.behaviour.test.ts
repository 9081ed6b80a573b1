import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { SqliteStore } from "../../src/store/sqlite/store.js";
import { storeBehaviour } from "./store.behaviour.js";

// Each test gets its own database file in its own directory, removed afterwards.
storeBehaviour("sqlite", async (limits, cipher) => {
  const dir = await mkdtemp(join(tmpdir(), "hookline-store-"));
  const removeDir = () => rm(dir, { recursive: true, force: true });
  let store: SqliteStore;
  try {
    store = new SqliteStore({
      path: join(dir, "hookline.db"),
      synchronous: "normal",
      limits,
      cipher,
    });
  } catch (err) {
    await removeDir();
    throw err;
  }
  return {
    store,
    cleanup: async () => {
      await store.close();
      await removeDir();
    },
  };
});
