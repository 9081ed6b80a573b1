/**
 * Ctrl-C (or SIGTERM, SIGHUP) during `hookline store copy` ended it without a word: safe, as the
 * copy is one transaction that PostgreSQL rolls back, but the operator was left to guess whether
 * the schema now held half a copy. Stopped while it writes, it ends its batch, rolls back, says
 * that nothing was copied and exits 130 (143, 129); before it writes, it ends at once, saying so;
 * while the destination is migrated, it lets the migration end, then stops before copying. A
 * second signal, a second or more after the first, ends it at once. Each time, the rerun goes
 * through.
 *
 * Stopped while it writes, the copy is held at its first INSERT INTO messages by a proxy in front
 * of PostgreSQL, told before the copy starts: the signal comes while it copies messages however
 * slowly the test runs beside the copy.
 */
import pg from "pg";
import { expect, it } from "vitest";
import { MIGRATION_LOCK } from "../../src/store/postgres/migrate.js";
import { MIGRATIONS } from "../../src/store/postgres/migrations.js";
import { newestVersion } from "../../src/store/newer-schema.js";
import { runCli, spawnCli, type CliRun } from "../support/built-cli.js";
import { useCleanup } from "../support/cleanup.js";
import { adminQuery, dropSchema, freshSchemaName, TEST_DATABASE_URL } from "../support/postgres.js";
import { SilentPostgres } from "../support/silent-postgres.js";
import { aSqliteDataDir, rowsIn } from "../support/store-copy.js";
import { TcpProxy } from "../support/tcp-proxy.js";

const cleanup = useCleanup();
const VERSION = newestVersion(MIGRATIONS);

/** `hookline store copy` of `dir` into `schema`, killed after the test if it still runs. */
function spawnCopy(dir: string, schema: string, to = TEST_DATABASE_URL): CliRun {
  const run = spawnCli(["store", "copy", "--to", to, "--schema", schema], {
    HOOKLINE_DATA_DIR: dir,
  });
  cleanup.push(async () => {
    run.child.kill("SIGKILL");
    await run.exited;
  });
  return run;
}

/** The copy's own line on stderr, the last (progress lines may come before it). */
const lastLine = (run: CliRun) => run.err().trimEnd().split("\n").pop();

it("SIGINT while it writes rolls the copy back, says nothing was copied, and exits 130", async () => {
  const { dir } = await aSqliteDataDir(cleanup, { messages: 5_000 });
  const schema = freshSchemaName();
  cleanup.push(() => dropSchema(schema));
  const pgUrl = new URL(TEST_DATABASE_URL);
  const proxy = await TcpProxy.start({ host: pgUrl.hostname, port: Number(pgUrl.port || 5432) });
  cleanup.push(() => proxy.cut());
  pgUrl.port = String(proxy.port);
  const copyingMessages = proxy.holdStatement("INSERT INTO messages ");
  const run = spawnCopy(dir, schema, pgUrl.toString());
  const held = await Promise.race([copyingMessages.then(() => true), run.exited.then(() => false)]);
  expect(held, run.out() + run.err()).toBe(true);
  run.child.kill("SIGINT");
  // Its first batch of messages goes through; the copy stops after it, or after the next.
  proxy.forward();
  expect(await run.exited, run.out() + run.err()).toBe(130);

  expect(lastLine(run)).toMatch(
    new RegExp(
      `^hookline: store copy stopped by SIGINT while copying messages: nothing was ` +
        `copied, as the rows written so far were rolled back \\(the copy is one transaction\\); ` +
        `the copy made the PostgreSQL schema "${schema}" and migrated it to version ${VERSION}, ` +
        "and it holds no hookline data; the SQLite store is unchanged; run `hookline store copy` " +
        "again to copy$",
    ),
  );
  expect(run.out()).not.toContain("done");
  // Rolled back before the process ended, not left for PostgreSQL to find out.
  expect(await rowsIn(schema)).toEqual({});

  const again = await runCli(["store", "copy", "--to", TEST_DATABASE_URL, "--schema", schema], {
    HOOKLINE_DATA_DIR: dir,
  });
  expect(again.code, again.out + again.err).toBe(0);
  expect(await rowsIn(schema)).toMatchObject({ applications: 1, endpoints: 1, messages: 5_000 });
}, 60_000);

it("SIGTERM before it writes (PostgreSQL not answering) ends it at once, exit 143", async () => {
  const { dir } = await aSqliteDataDir(cleanup);
  const silent = await SilentPostgres.start();
  cleanup.push(() => silent.close());
  const schema = freshSchemaName();
  const run = spawnCopy(dir, schema, silent.url("secret"));
  // Said as it begins, the handlers in place: then it asks the server, which never answers.
  while (!run.out().includes("copying ")) {
    expect(run.child.exitCode, run.out() + run.err()).toBeNull();
    await new Promise((r) => setTimeout(r, 5));
  }
  run.child.kill("SIGTERM");
  expect(await run.exited, run.out() + run.err()).toBe(143);
  expect(run.err()).toBe(
    `hookline: store copy stopped by SIGTERM before writing anything: nothing was copied, the ` +
      `PostgreSQL schema "${schema}" is as it was, and the SQLite store is unchanged\n`,
  );
}, 30_000);

/** Another process migrating `schema`, as far as a copy can tell, until `release` is called. */
async function migrationHeldElsewhere(schema: string): Promise<{ release(): Promise<void> }> {
  const other = new pg.Client({ connectionString: TEST_DATABASE_URL });
  await other.connect();
  cleanup.push(() => other.end());
  await other.query("BEGIN");
  await other.query("SELECT pg_advisory_xact_lock($1, hashtext($2))", [MIGRATION_LOCK, schema]);
  return { release: async () => void (await other.query("ROLLBACK")) };
}

/** Waits until the copy's session waits on a lock. */
async function untilWaitingOnALock(run: CliRun, schema: string): Promise<void> {
  for (;;) {
    const waiting = await adminQuery(
      "SELECT 1 FROM pg_stat_activity WHERE application_name = $1 AND wait_event_type = 'Lock'",
      [`hookline/${schema}`],
    );
    if (waiting.length > 0) return;
    expect(run.child.exitCode, run.out() + run.err()).toBeNull();
    await new Promise((r) => setTimeout(r, 20));
  }
}

it("SIGHUP while the schema is migrated lets the migration end, then stops before copying, exit 129", async () => {
  const { dir } = await aSqliteDataDir(cleanup, { messages: 3 });
  const schema = freshSchemaName();
  cleanup.push(() => dropSchema(schema));
  const held = await migrationHeldElsewhere(schema);
  const run = spawnCopy(dir, schema);
  await untilWaitingOnALock(run, schema);
  run.child.kill("SIGHUP");
  await held.release();
  expect(await run.exited, run.out() + run.err()).toBe(129);
  expect(run.err()).toBe(
    `hookline: store copy stopped by SIGHUP once the PostgreSQL schema was migrated, before ` +
      `copying: nothing was copied; the copy made the PostgreSQL schema "${schema}" and migrated ` +
      `it to version ${VERSION}, and it holds no hookline data; the SQLite store is unchanged; ` +
      "run `hookline store copy` again to copy\n",
  );
  expect(await adminQuery(`SELECT max(version) AS v FROM ${schema}.hookline_migrations`)).toEqual([
    { v: VERSION },
  ]);
  expect(await rowsIn(schema)).toEqual({});

  const again = await runCli(["store", "copy", "--to", TEST_DATABASE_URL, "--schema", schema], {
    HOOKLINE_DATA_DIR: dir,
  });
  expect(again.code, again.out + again.err).toBe(0);
  expect(await rowsIn(schema)).toMatchObject({ messages: 3 });
}, 60_000);

it("a second signal, a second or more after the first, ends it at once, exit 1", async () => {
  const { dir } = await aSqliteDataDir(cleanup);
  const schema = freshSchemaName();
  cleanup.push(() => dropSchema(schema));
  const held = await migrationHeldElsewhere(schema);
  cleanup.push(() => held.release());
  const run = spawnCopy(dir, schema);
  await untilWaitingOnALock(run, schema);
  run.child.kill("SIGINT");
  // One within a second of the first is the same Ctrl-C passed on by npx, and is not heard. The
  // second is counted from when the copy heard the first, which a loaded machine may delay: it is
  // sent again until the copy ends.
  await new Promise((r) => setTimeout(r, 1_200));
  let ended = false;
  void run.exited.then(() => (ended = true));
  while (!ended) {
    run.child.kill("SIGINT");
    await Promise.race([run.exited, new Promise((r) => setTimeout(r, 500))]);
  }
  expect(await run.exited, run.out() + run.err()).toBe(1);
  expect(run.err()).toBe(
    `hookline: store copy stopped at once by SIGINT while migrating the PostgreSQL schema ` +
      `"${schema}": nothing was copied, and the SQLite store is unchanged; each migration ` +
      "commits on its own, so the schema may have been made and migrated part of the way, " +
      "without hookline data; run `hookline store copy` again to copy\n",
  );
}, 30_000);
