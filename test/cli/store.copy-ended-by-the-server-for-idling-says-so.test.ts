/**
 * The server ends a transaction of the copy's left idle past HOOKLINE_PG_QUERY_TIMEOUT_MS (its
 * process stopped, its machine paused). The copy, once it went on, failed with a bare connection
 * error ("Client was closed and is not queryable"), which said neither why nor what to change: its
 * connection had no ear for the server's word. It now says the server ended its session for
 * idling, and names the setting.
 */
import { expect, it } from "vitest";
import { freezeInTransaction, spawnCli } from "../support/built-cli.js";
import { useCleanup } from "../support/cleanup.js";
import { adminQuery, dropSchema, freshSchemaName, TEST_DATABASE_URL } from "../support/postgres.js";
import { stopAfter } from "../support/process.js";
import { aSqliteDataDir } from "../support/store-copy.js";

const cleanup = useCleanup();

it("a copy frozen in its transaction past the timeout fails saying the server ended it for idling", async () => {
  const { dir } = await aSqliteDataDir(cleanup, { messages: 5_000 });
  const schema = freshSchemaName();
  cleanup.push(() => dropSchema(schema));
  const args = ["store", "copy", "--to", TEST_DATABASE_URL, "--schema", schema];
  const copy = stopAfter(
    cleanup,
    spawnCli(args, { HOOKLINE_DATA_DIR: dir, HOOKLINE_PG_QUERY_TIMEOUT_MS: "2000" }),
    "SIGKILL",
  );
  const session = async () =>
    adminQuery(
      "SELECT query FROM pg_stat_activity WHERE application_name = $1 AND pid <> pg_backend_pid()",
      [`hookline/${schema}`],
    );
  // Frozen as its transaction writes the messages or their deliveries, past the migration.
  while (
    !(await session()).some((s) => /^INSERT INTO (messages|deliveries) /.test(String(s.query)))
  ) {
    expect(copy.child.exitCode, copy.out() + copy.err()).toBeNull();
    await new Promise((r) => setTimeout(r, 5));
  }
  await freezeInTransaction(copy, schema);
  // The server ends the session once the transaction has stood idle past the timeout.
  while ((await session()).length > 0) await new Promise((r) => setTimeout(r, 50));

  copy.child.kill("SIGCONT");
  const code = await copy.exited;
  expect(code, copy.out() + copy.err()).toBe(1);
  expect(copy.err()).toContain(
    "PostgreSQL ended the copy's session, its transaction left idle past HOOKLINE_PG_QUERY_TIMEOUT_MS (2000 ms)",
  );
  expect(copy.err()).toContain("none of its rows were kept");
}, 60_000);
