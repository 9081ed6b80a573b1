/**
 * A SQLite hookline killed while a request was out leaves its delivery claimed, its commits in the
 * WAL. The copy reads them, leaves both files as they were, and puts the claimed delivery back in
 * line as a restart on SQLite would: a hookline on the copy sends it again at once.
 */
import { createHash } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { expect, it } from "vitest";
import { tempDir, useCleanup } from "../support/cleanup.js";
import { GatedReceiver } from "../support/gated-receiver.js";
import { deliveryOf } from "../support/hookline.js";
import { adminQuery, aSchemaName } from "../support/postgres.js";
import { postOneMessage, spawnHookline, stopAfter, TEST_TOKEN } from "../support/process.js";
import { copyToSchema, startHooklineOnTheCopy } from "../support/store-copy.js";

const cleanup = useCleanup();

/** The SQLite files' contents, to tell that the copy changed none of them. */
function fingerprint(dir: string): string {
  const hash = createHash("sha256");
  for (const f of ["hookline.db", "hookline.db-wal"]) {
    const path = join(dir, f);
    hash.update(f).update(existsSync(path) ? readFileSync(path) : "none");
  }
  return hash.digest("hex");
}

it("a delivery in flight when SQLite hookline was killed is sent again from the copy", async () => {
  const dir = tempDir(cleanup, "hookline-copy-inflight-");
  const schema = aSchemaName(cleanup);
  const rx = await GatedReceiver.start();
  cleanup.push(() => rx.close());
  const proc = stopAfter(cleanup, await spawnHookline(dir), "SIGKILL");
  const msgId = await postOneMessage(proc.url, rx.url());
  await rx.arrived(1);
  proc.child.kill("SIGKILL");
  await proc.exited;
  const before = fingerprint(dir);

  const copiedAt = Date.now();
  const run = await copyToSchema(dir, schema);
  expect(run.failure).toBeNull();
  expect(run.out).toContain(
    "deliveries still to be sent: 1 (1 of them in flight when hookline stopped: due again, as a restart would leave them)",
  );
  expect(fingerprint(dir)).toBe(before);
  const [row] = await adminQuery(
    `SELECT state, lease_until, next_attempt_at, claimed_by FROM ${schema}.deliveries`,
  );
  expect(row).toMatchObject({ state: "pending", lease_until: null, claimed_by: null });
  expect(Number(row!.next_attempt_at)).toBeLessThanOrEqual(Date.now());
  expect(Number(row!.next_attempt_at)).toBeGreaterThan(copiedAt - 60_000);

  rx.release();
  const pg = await startHooklineOnTheCopy(cleanup, dir, schema, {
    HOOKLINE_ADMIN_TOKEN: TEST_TOKEN,
  });
  await pg.waitFor(deliveryOf(msgId, "succeeded"), 20_000);
  expect(rx.ids).toEqual([msgId, msgId]);
}, 60_000);
