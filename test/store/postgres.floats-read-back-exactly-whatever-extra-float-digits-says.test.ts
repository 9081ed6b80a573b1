/**
 * PostgreSQL sends a DOUBLE PRECISION value as text, with as many digits as the session's
 * extra_float_digits allows: below 1 (a database's or role's default, or `-c extra_float_digits`
 * in DATABASE_URL's options), it rounds them. An alert's value and threshold and a replay job's
 * rate and canary threshold read back changed (2/3 as 0.666666666667) on such a server, unlike on
 * SQLite. Every connection of the store now asks for every digit, so what hookline wrote reads back
 * exactly, on a database of its own whose default is -3 and through a URL that asks for -3.
 */
import { expect, it } from "vitest";
import { newId } from "../../src/ids.js";
import type { Store } from "../../src/store/port.js";
import { useCleanup } from "../support/cleanup.js";
import {
  aDatabase,
  DROPS_A_DATABASE,
  aSharedStore,
  adminQuery,
  queryIn,
} from "../support/postgres.js";
import { anAlert, saveAlerts, T0 } from "./behaviour/fixtures.js";
import { aNewJob } from "./behaviour/dlq-fixtures.js";

const cleanup = useCleanup(DROPS_A_DATABASE);

/** Values a float's shortest exact text needs 16 or 17 digits for. */
const TWO_THIRDS = 2 / 3;
const POINT_THREE = 0.1 + 0.2;
const TWO_THIRDS_AS_TEXT = "SELECT (2::float8 / 3)::text AS t";

/** A database of its own whose sessions round floats to 12 digits unless they ask otherwise. */
async function aRoundingDatabase(): Promise<string> {
  const url = await aDatabase(cleanup, "hl_pgenv_floats", "UTF8");
  const name = new URL(url).pathname.slice(1);
  await adminQuery(`ALTER DATABASE ${name} SET extra_float_digits = -3`);
  expect(await queryIn(url, TWO_THIRDS_AS_TEXT)).toEqual([{ t: "0.666666666667" }]);
  return url;
}

/** A URL to a database of its own whose options round floats to 12 digits. */
async function aRoundingUrl(): Promise<string> {
  const url = new URL(await aDatabase(cleanup, "hl_pgenv_floats", "UTF8"));
  url.searchParams.set("options", "-c extra_float_digits=-3");
  expect(await queryIn(url.toString(), TWO_THIRDS_AS_TEXT)).toEqual([{ t: "0.666666666667" }]);
  return url.toString();
}

/** Writes an alert and a replay job holding floats; checks each reads back as written. */
async function expectFloatsReadBackExactly(store: Store): Promise<void> {
  await saveAlerts(store, "wkr_a", [
    anAlert("alrt_float", { value: TWO_THIRDS, threshold: POINT_THREE }),
  ]);
  const [alert] = await store.listAlerts({ resolvedSince: 0 });
  expect(alert).toMatchObject({ value: TWO_THIRDS, threshold: POINT_THREE });

  const job = await aNewJob(store, {
    id: newId("job", T0),
    task: "dlq.replay",
    selection: { ids: ["dlq_x"] },
    ratePerSecond: TWO_THIRDS,
    canarySize: 3,
    canaryThreshold: POINT_THREE,
    startAt: T0,
    createdBy: "ops",
    note: null,
    now: T0,
  });
  expect(await store.getReplayJob(job.id)).toMatchObject({
    ratePerSecond: TWO_THIRDS,
    canaryThreshold: POINT_THREE,
  });
}

it("reads floats back exactly from a database whose extra_float_digits is -3", async () => {
  const store = await aSharedStore(cleanup, undefined, await aRoundingDatabase());
  await expectFloatsReadBackExactly(store);
}, 60_000);

it("reads floats back exactly when DATABASE_URL's options set extra_float_digits to -3", async () => {
  const store = await aSharedStore(cleanup, undefined, await aRoundingUrl());
  await expectFloatsReadBackExactly(store);
}, 60_000);
