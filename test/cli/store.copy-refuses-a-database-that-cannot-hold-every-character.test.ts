/**
 * `hookline store copy --to` a database in an encoding that cannot hold every character hookline
 * accepts (LATIN1 here) went ahead: its dry run said the copy would go through, and the copy
 * migrated the schema there before failing at the first row it could not hold, or, on a store of
 * plain text, left a copy a hookline would then refuse to start on. Both now refuse it at their
 * first look, naming the encoding and --to, with nothing written. SQL_ASCII keeps the bytes as
 * they are sent (see serve.a-database-that-cannot-hold-every-character-is-refused-before-migrating):
 * a copy goes into it. Runs the built command: `npm run build` first.
 */
import { expect, it } from "vitest";
import { runCli } from "../support/built-cli.js";
import { useCleanup } from "../support/cleanup.js";
import { aDatabase, DROPS_A_DATABASE, queryIn } from "../support/postgres.js";
import { aSqliteDataDir } from "../support/store-copy.js";

const cleanup = useCleanup(DROPS_A_DATABASE);

it("refuses a LATIN1 database, dry or not, and writes nothing there", async () => {
  const { dir } = await aSqliteDataDir(cleanup, { messages: 2 });
  const url = await aDatabase(cleanup, "hl_test_copy_latin1", "LATIN1");
  const database = new URL(url).pathname.slice(1);
  const args = ["store", "copy", "--to", url, "--schema", "hooks"];

  const dry = await runCli([...args, "--dry-run"], { HOOKLINE_DATA_DIR: dir });
  const real = await runCli(args, { HOOKLINE_DATA_DIR: dir });
  expect([dry.code, real.code], dry.out + dry.err + real.out + real.err).toEqual([1, 1]);
  expect(dry.err).toBe(real.err);
  expect(real.err).toBe(
    `hookline: the PostgreSQL database ${database} (--to) is in the encoding LATIN1, which cannot hold every character hookline accepts: names, descriptions, URLs, metadata and receivers' answers in any script or with emoji would be refused as they came. Make a database in UTF8 (CREATE DATABASE … ENCODING 'UTF8' LC_COLLATE 'C' LC_CTYPE 'C' TEMPLATE template0) and copy into that one; nothing was written\n`,
  );
  expect(await queryIn(url, "SELECT 1 FROM pg_namespace WHERE nspname = 'hooks'")).toEqual([]);
}, 60_000);

it("copies into a SQL_ASCII database", async () => {
  const { dir } = await aSqliteDataDir(cleanup, { messages: 2 });
  const url = await aDatabase(cleanup, "hl_test_copy_sql_ascii", "SQL_ASCII");
  const args = ["store", "copy", "--to", url, "--schema", "hooks"];

  const dry = await runCli([...args, "--dry-run"], { HOOKLINE_DATA_DIR: dir });
  expect(dry.code, dry.out + dry.err).toBe(0);
  const real = await runCli(args, { HOOKLINE_DATA_DIR: dir });
  expect(real.code, real.out + real.err).toBe(0);
  expect(await queryIn(url, "SELECT count(*)::int AS n FROM hooks.messages")).toEqual([{ n: 2 }]);
}, 60_000);
