/**
 * `hookline store copy` killed while it writes (kill -9, the OOM killer). A copy that fails is
 * rolled back by the copy itself (store.copy-that-fails-partway-…); a killed one cannot: what
 * undoes it is PostgreSQL seeing its connection close, and the kernel letting go of the data dir's
 * lock. The schema must hold none of its rows, no session of it may be left holding its locks, the
 * data dir must not read as in use, and running the copy again must go through.
 */
import { randomBytes } from "node:crypto";
import { expect, it } from "vitest";
import { runCli, spawnCli } from "../support/built-cli.js";
import { useCleanup } from "../support/cleanup.js";
import { adminQuery, dropSchema, freshSchemaName, TEST_DATABASE_URL } from "../support/postgres.js";
import { aSqliteDataDir, rowsIn } from "../support/store-copy.js";

const cleanup = useCleanup();

/** The sessions of hookline processes on `schema` (their application name says which schema). */
async function sessionsOn(schema: string): Promise<string[]> {
  const rows = await adminQuery(
    "SELECT state FROM pg_stat_activity WHERE application_name = $1 AND pid <> pg_backend_pid()",
    [`hookline/${schema}`],
  );
  return rows.map((r) => String(r.state));
}

it("killed while writing messages, it leaves no row and no session, and the rerun goes through", async () => {
  const key = randomBytes(32);
  const { dir } = await aSqliteDataDir(cleanup, { messages: 5_000, key });
  const schema = freshSchemaName();
  cleanup.push(() => dropSchema(schema));
  const env = { HOOKLINE_DATA_DIR: dir, HOOKLINE_ENCRYPTION_KEY: key.toString("base64") };
  const args = ["store", "copy", "--to", TEST_DATABASE_URL, "--schema", schema];

  const run = spawnCli(args, env);
  cleanup.push(async () => void run.child.kill("SIGKILL"));
  // Killed as its transaction writes the messages or their deliveries: past the applications and
  // endpoints it wrote. (Either, so that a poll slowed by a loaded machine still finds it there.)
  let writing = false;
  while (!writing && run.child.exitCode === null) {
    const [row] = await adminQuery(
      "SELECT count(*)::int AS n FROM pg_stat_activity WHERE application_name = $1 AND query ~ '^INSERT INTO (messages|deliveries) '",
      [`hookline/${schema}`],
    );
    writing = Number(row!.n) > 0;
    if (!writing) await new Promise((r) => setTimeout(r, 5));
  }
  expect(writing, run.out() + run.err()).toBe(true);
  run.child.kill("SIGKILL");
  expect(await run.exited).toBe("SIGKILL");

  // The server saw the connection close and rolled the copy back.
  await expect.poll(() => sessionsOn(schema)).toEqual([]);
  expect(await rowsIn(schema)).toEqual({});

  // The lock was the dead process's: the rerun is not told a hookline runs there.
  const again = await runCli(args, env);
  expect(again.code, again.out + again.err).toBe(0);
  expect(again.out).toMatch(/\n {2}messages: +5000\n/);
  expect(await rowsIn(schema)).toMatchObject({ applications: 1, endpoints: 1, messages: 5_000 });
}, 60_000);
