/**
 * A SQLite hookline killed in the middle of a bulk replay leaves the job running under the lease
 * of a runner that is gone. Started again on SQLite, hookline takes such a job up at once; the
 * copy leaves it as that start would, so a hookline on the copy carries the job on at once too,
 * rather than after the dead runner's lease (a minute) has run out.
 */
import { expect, it } from "vitest";
import type { JobOut } from "../support/dlq.js";
import { tempDir, useCleanup } from "../support/cleanup.js";
import { adminQuery, aSchemaName } from "../support/postgres.js";
import { call, spawnHookline, stopAfter, TEST_TOKEN } from "../support/process.js";
import { Receiver } from "../support/receiver.js";
import { copyToSchema, startHooklineOnTheCopy } from "../support/store-copy.js";

const cleanup = useCleanup();

/** Polls `read` every 50 ms until `done`, for at most `ms`. */
async function until<T>(read: () => Promise<T>, done: (v: T) => boolean, ms = 20_000) {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = await read();
    if (done(v) || Date.now() > deadline) return v;
    await new Promise((r) => setTimeout(r, 50));
  }
}

it("a replay job running when SQLite hookline was killed goes on at once from the copy", async () => {
  const dir = tempDir(cleanup, "hookline-copy-job-");
  const schema = aSchemaName(cleanup);
  const rx = await Receiver.start(() => ({ status: 404 }));
  cleanup.push(() => rx.close());

  // ---- three records, and a job replaying them one every 20 s ---------------------------------
  const proc = stopAfter(cleanup, await spawnHookline(dir), "SIGKILL");
  await call(proc.url, "POST", "/api/v1/app", { name: "Acme", uid: "acme" });
  const ep = await call<{ id: string }>(proc.url, "POST", "/api/v1/app/acme/endpoint", {
    url: rx.url("/gone"),
    deliveryPolicy: { retry: { preset: "manual" } },
  });
  for (let i = 0; i < 3; i++) {
    await call(proc.url, "POST", "/api/v1/app/acme/msg", { eventType: "e", payload: { i } });
  }
  await rx.waitFor(3);
  const open = await until(
    () => call<{ data: unknown[] }>(proc.url, "GET", "/api/v1/dlq?state=open"),
    (r) => r.body.data.length === 3,
  );
  expect(open.body.data).toHaveLength(3);
  const job = await call<JobOut>(proc.url, "POST", "/api/v1/dlq/replay", {
    endpointId: ep.body.id,
    canarySize: 0,
    ratePerSecond: 0.05,
  });
  expect(job.status).toBe(202);
  const first = await until(
    () => call<JobOut>(proc.url, "GET", `/api/v1/dlq/replay/${job.body.id}`),
    (r) => r.body.progress.failed === 1,
  );
  expect(first.body).toMatchObject({ state: "running", progress: { queued: 1, failed: 1 } });
  proc.child.kill("SIGKILL");
  await proc.exited;

  // ---- the copy, and a hookline on it --------------------------------------------------------
  const run = await copyToSchema(dir, schema);
  expect(run.failure).toBeNull();
  expect(await adminQuery(`SELECT state, lease_until, held_by FROM ${schema}.replay_jobs`)).toEqual(
    [{ state: "running", lease_until: null, held_by: null }],
  );

  const pg = await startHooklineOnTheCopy(cleanup, dir, schema, {
    HOOKLINE_ADMIN_TOKEN: TEST_TOKEN,
  });
  // The job's next replay goes out well within the dead runner's lease of a minute.
  await rx.waitFor(5, undefined, 15_000);
  const after = await pg.api<JobOut>("GET", `/api/v1/dlq/replay/${job.body.id}`);
  expect(after.body.progress.queued).toBeGreaterThanOrEqual(2);
}, 60_000);
