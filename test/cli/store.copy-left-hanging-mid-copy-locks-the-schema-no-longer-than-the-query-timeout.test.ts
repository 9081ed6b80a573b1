/**
 * A copy whose machine goes down mid-copy (or whose process hangs, here frozen with SIGSTOP) leaves
 * its connection open, as far as PostgreSQL knows, and its transaction with it, holding every
 * table of the schema locked: the server hears of a vanished client only when TCP keep-alive gives
 * up on it, two hours and more by default. Copying again (from the same store, on another machine
 * or once this one is back) then waited on those locks and failed as if PostgreSQL were lost, and
 * so would have for hours. The server now ends a transaction of the copy left idle longer than
 * HOOKLINE_PG_QUERY_TIMEOUT_MS, and the rerun, waiting for that, goes through.
 */
import { copyFileSync } from "node:fs";
import { join } from "node:path";
import { expect, it } from "vitest";
import { freezeInTransaction, runCli, spawnCli } from "../support/built-cli.js";
import { tempDir, useCleanup } from "../support/cleanup.js";
import { adminQuery, aSchemaName, TEST_DATABASE_URL } from "../support/postgres.js";
import { stopAfter } from "../support/process.js";
import { aSqliteDataDir } from "../support/store-copy.js";

const cleanup = useCleanup();

it("the rerun goes through once the server has ended the hanging copy's transaction", async () => {
  const { dir } = await aSqliteDataDir(cleanup, { messages: 5_000 });
  const schema = aSchemaName(cleanup);
  const args = ["store", "copy", "--to", TEST_DATABASE_URL, "--schema", schema];
  const timeout = { HOOKLINE_PG_QUERY_TIMEOUT_MS: "2000" };

  const hanging = stopAfter(
    cleanup,
    spawnCli(args, { HOOKLINE_DATA_DIR: dir, ...timeout }),
    "SIGKILL",
  );
  // Frozen as its transaction writes the messages or their deliveries: past the migration, every
  // table locked. (Either, so that a poll slowed by a loaded machine still finds it there.)
  for (;;) {
    const [row] = await adminQuery(
      "SELECT count(*)::int AS n FROM pg_stat_activity WHERE application_name = $1 AND query ~ '^INSERT INTO (messages|deliveries) '",
      [`hookline/${schema}`],
    );
    if (Number(row!.n) > 0) break;
    expect(hanging.child.exitCode, hanging.out() + hanging.err()).toBeNull();
    await new Promise((r) => setTimeout(r, 5));
  }
  await freezeInTransaction(hanging, schema);

  // The same store from another data dir: the frozen process still holds this one's lock, which a
  // machine that went down would not.
  const elsewhere = tempDir(cleanup, "hookline-copy-again-");
  copyFileSync(join(dir, "hookline.db"), join(elsewhere, "hookline.db"));
  const again = await runCli(args, { HOOKLINE_DATA_DIR: elsewhere, ...timeout });
  expect(again.code, again.out + again.err).toBe(0);
  expect(again.out).toMatch(/\n {2}messages: +5000\n/);
}, 60_000);
