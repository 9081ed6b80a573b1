/**
 * The disk under SQLite fills up while the WAL still has room: commits go on, but the checkpoint
 * thread cannot grow the database file. A real fault, made as in
 * store-unavailable.sqlite-disk-full-answers-503-and-resumes.test.ts: the running hookline
 * process's file size limit is lowered to the database file's size (prlimit --fsize), so writes
 * into the WAL, which starts over from its beginning, succeed and writes past the end of the
 * database file fail. Once there is room again, the thread's checkpoints carry on; before, the
 * thread stopped for good at the first failure, and every commit went back to checkpointing
 * inside itself until hookline was restarted.
 */
import { execFileSync } from "node:child_process";
import { statSync } from "node:fs";
import { join } from "node:path";
import Database from "better-sqlite3";
import { expect, it } from "vitest";
import { tempDir, useCleanup } from "../support/cleanup.js";
import { call, spawnHookline, stopAfter } from "../support/process.js";

const cleanup = useCleanup();

/** Sets the process's file size limit as `soft:hard`; only the soft one moves, so it can go back up. */
const fileSizeLimit = (pid: number, limit: string) =>
  execFileSync("prlimit", ["--pid", String(pid), `--fsize=${limit}`]);

/** Asks until `check` holds: waits for a state, never for a time. */
async function until(check: () => boolean): Promise<void> {
  while (!check()) await new Promise((r) => setTimeout(r, 20));
}

it("checkpoints that failed for want of room carry on once there is room", async () => {
  const dir = tempDir(cleanup, "hookline-full-");
  const proc = stopAfter(
    cleanup,
    await spawnHookline(dir, { HOOKLINE_LOG_LEVEL: "info" }),
    "SIGKILL",
  );
  const pid = proc.child.pid!;
  const dbBytes = () => statSync(join(dir, "hookline.db")).size;
  const post = () =>
    call(proc.url, "POST", "/api/v1/app/acme/msg", {
      eventType: "order.paid",
      payload: { pad: "x".repeat(20_000) },
    });
  await call(proc.url, "POST", "/api/v1/app", { name: "acme", uid: "acme" });
  for (let i = 0; i < 20; i++) expect((await post()).status).toBe(202);
  // Everything is in the database file (copied here, should the thread not have yet), so the
  // next commit starts the WAL over from its beginning.
  const db = new Database(join(dir, "hookline.db"));
  const copied = () => {
    const [r] = db.pragma("wal_checkpoint(PASSIVE)") as {
      busy: number;
      log: number;
      checkpointed: number;
    }[];
    return r!.busy === 0 && r!.log === r!.checkpointed;
  };
  await until(copied);
  db.close();
  const full = dbBytes();
  expect(full).toBeGreaterThan(20 * 20_000);

  fileSizeLimit(pid, `${full}:unlimited`);
  for (let i = 0; i < 3; i++) expect((await post()).status).toBe(202);
  await until(() => proc.output().includes("checkpoints fail"));
  expect(dbBytes()).toBe(full);

  fileSizeLimit(pid, "unlimited:unlimited");
  await until(() => proc.output().includes("checkpoints work again"));
  await until(() => dbBytes() > full);
  expect(proc.output()).not.toContain("checkpoint thread stopped");
});
