/**
 * A first Ctrl-C (SIGTERM, SIGHUP) that reaches `hookline store copy` as it finishes (its rows
 * counted again in PostgreSQL, its commit) does not stop it: the copy is all but done, and stopping
 * there would only roll it back. That was right, but said nothing: the copy ended with exit 0 and
 * its usual output, and the operator who asked it to stop was left to wonder whether it had heard.
 * It now says at once that it heard the signal and finishes, and once it ends that the copy is
 * complete.
 *
 * The copy is held at its commit by a proxy in front of PostgreSQL that keeps the COMMIT back
 * until the test lets it through. The proxy is told before the copy starts to hold the first
 * COMMIT after the copy's first INSERT INTO messages (its migrations commit before), so it holds
 * that commit however slowly the test runs beside the copy.
 */
import { expect, it } from "vitest";
import { spawnCli } from "../support/built-cli.js";
import { useCleanup } from "../support/cleanup.js";
import { adminQuery, dropSchema, freshSchemaName, TEST_DATABASE_URL } from "../support/postgres.js";
import { aSqliteDataDir, rowsIn } from "../support/store-copy.js";
import { TcpProxy } from "../support/tcp-proxy.js";

const cleanup = useCleanup();

it("says it heard the signal and finishes, then that the copy is complete, exit 0", async () => {
  const { dir } = await aSqliteDataDir(cleanup, { messages: 5_000 });
  const schema = freshSchemaName();
  cleanup.push(() => dropSchema(schema));
  const pgUrl = new URL(TEST_DATABASE_URL);
  const proxy = await TcpProxy.start({ host: pgUrl.hostname, port: Number(pgUrl.port || 5432) });
  cleanup.push(() => proxy.cut());
  pgUrl.port = String(proxy.port);

  const committing = proxy.holdCommitAfter("INSERT INTO messages ");
  const run = spawnCli(["store", "copy", "--to", pgUrl.toString(), "--schema", schema], {
    HOOKLINE_DATA_DIR: dir,
  });
  cleanup.push(async () => {
    run.child.kill("SIGKILL");
    await run.exited;
  });
  const sessionOfTheCopy = async (where: string) =>
    (
      await adminQuery(
        `SELECT 1 FROM pg_stat_activity WHERE application_name = $1 AND pid <> pg_backend_pid() AND ${where}`,
        [`hookline/${schema}`],
      )
    ).length > 0;
  const until = async (done: () => Promise<boolean> | boolean) => {
    while (!(await done())) {
      expect(run.child.exitCode, run.out() + run.err()).toBeNull();
      await new Promise((r) => setTimeout(r, 5));
    }
  };

  // The COMMIT held: the copy is finishing, waiting for the commit's answer, its last statement
  // before it (the open dead letters counted again) answered.
  const held = await Promise.race([committing.then(() => true), run.exited.then(() => false)]);
  expect(held, run.out() + run.err()).toBe(true);
  expect(
    await sessionOfTheCopy("state = 'idle in transaction' AND query ~ 'FROM dead_letter_depth'"),
  ).toBe(true);

  run.child.kill("SIGINT");
  const heard =
    "hookline: store copy heard SIGINT as it was finishing (counting the rows again in " +
    "PostgreSQL, committing, gathering statistics): it finishes rather than stop; another " +
    "signal, a second or more from now, ends it at once";
  // Progress lines come before it on stderr when the copy took more than 2 s.
  const lines = () => run.err().trimEnd().split("\n");
  await until(() => /SIGINT.*\n/.test(run.err()));
  expect(lines().at(-1)).toBe(heard);
  proxy.forward();

  expect(await run.exited, run.out() + run.err()).toBe(0);
  expect(lines().slice(-2)).toEqual([
    heard,
    "hookline: store copy finished after SIGINT, heard as it was finishing: the copy is complete",
  ]);
  expect(run.out()).toContain("done: start hookline with DATABASE_URL");
  expect(await rowsIn(schema)).toMatchObject({ applications: 1, endpoints: 1, messages: 5_000 });
}, 60_000);
