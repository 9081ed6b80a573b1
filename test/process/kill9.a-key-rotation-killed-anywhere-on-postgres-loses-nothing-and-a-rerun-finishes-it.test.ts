/**
 * `hookline keys rotate` killed at any moment of a rotation on PostgreSQL, as on SQLite
 * (kill9.a-key-rotation-killed-anywhere-on-sqlite-…): each batch is one transaction on a
 * connection the kill closes, so the server rolls back the one under way; hookline started with
 * both keys shows everything as before, and running the command again finishes the rotation.
 */
import { it } from "vitest";
import { PostgresStore } from "../../src/store/postgres/store.js";
import { useCleanup } from "../support/cleanup.js";
import { killRotationsAtSeededRows, watchPostgres } from "../support/key-rotation.js";
import { dropSchema, freshSchemaName, TEST_DATABASE_URL } from "../support/postgres.js";
import { tempDir } from "../support/cleanup.js";

const cleanup = useCleanup();

it("a rotation killed at seeded moments leaves every value readable, and running it again finishes it", async () => {
  const schema = freshSchemaName();
  cleanup.push(() => dropSchema(schema));
  await killRotationsAtSeededRows({
    store: {
      DATABASE_URL: TEST_DATABASE_URL,
      HOOKLINE_PG_SCHEMA: schema,
      // The admin token's file: hookline keeps it in the data dir on PostgreSQL too.
      HOOKLINE_DATA_DIR: tempDir(cleanup, "hookline-rotate-kill-"),
    },
    open: (cipher) =>
      PostgresStore.open({ connectionString: TEST_DATABASE_URL, schema, poolSize: 8, cipher }),
    watch: () => watchPostgres(schema),
    seeds: [8, 14],
    batchSize: 50,
  });
  // About 30 s alone, and 86 s in a whole run on a slow host (session 54), beside other files: a
  // limit that catches a hang, not a measure of speed.
}, 180_000);
