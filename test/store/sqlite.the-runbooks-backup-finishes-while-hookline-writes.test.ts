/**
 * The runbook's backup of the SQLite database, run as written (with the sqlite3 command-line
 * tool) against a database hookline keeps writing to, finishes, and its file restores into a
 * working store. SQLite's online backup (`.backup`) starts over whenever another process writes,
 * so against a hookline taking traffic it did not finish at all.
 */
import { execFileSync, spawn } from "node:child_process";
import { mkdirSync, readdirSync, readFileSync, renameSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import Database from "better-sqlite3";
import { expect, it } from "vitest";
import { DEFAULT_CHECKPOINTS } from "../../src/store/sqlite/checkpointer.js";
import { SqliteStore } from "../../src/store/sqlite/store.js";
import { tempDir, useCleanup } from "../support/cleanup.js";
import { accept, anApplication } from "./behaviour/fixtures.js";

const cleanup = useCleanup();

/** The runbook's SQLite backup lines, with its /backups/ directory moved to `backups`. */
function runbookBackup(backups: string): string {
  const runbook = readFileSync(join(import.meta.dirname, "../../docs/runbook.md"), "utf8");
  const section = runbook.slice(runbook.indexOf("**SQLite.**"));
  const block = /```sh\n([\s\S]*?)```/.exec(section)![1]!;
  return block.replaceAll("/backups/", `${backups}/`);
}

it("the runbook's SQLite backup finishes while hookline writes, and restores", async () => {
  const dir = tempDir(cleanup, "hookline-backup-");
  mkdirSync(join(dir, "data"));
  mkdirSync(join(dir, "backups"));
  writeFileSync(join(dir, "data", "admin-token"), "hl_admin_kept\n", { mode: 0o600 });
  const path = join(dir, "data", "hookline.db");

  // A 20 MB history, written before hookline opens the file.
  const store0 = new SqliteStore({ path, synchronous: "normal" });
  const app = await store0.createApplication(anApplication());
  await store0.close();
  const raw = new Database(path);
  const insert = raw.prepare(
    "INSERT INTO messages (id, app_id, event_type, payload, created_at) VALUES (?, ?, 'x.y', ?, 0)",
  );
  raw.transaction(() => {
    for (let i = 0; i < 5_000; i++) insert.run(`msg_old${i}`, app.id, Buffer.alloc(4_000, 1));
  })();
  raw.close();

  // hookline's store, as its process opens it, taking a message every 2 ms meanwhile.
  const store = new SqliteStore({ path, synchronous: "normal", checkpoints: DEFAULT_CHECKPOINTS });
  let accepted = 0;
  const writing = setInterval(() => {
    void accept(store, app.id).then(() => accepted++);
  }, 2);
  try {
    const backup = spawn("bash", ["-ec", runbookBackup(join(dir, "backups"))], { cwd: dir });
    let stderr = "";
    backup.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
    const code = await new Promise<number | null>((resolve) => {
      const limit = setTimeout(() => backup.kill("SIGKILL"), 20_000);
      backup.on("exit", (c) => {
        clearTimeout(limit);
        resolve(c);
      });
    });
    expect({ code, stderr }).toEqual({ code: 0, stderr: "" });
    expect(accepted).toBeGreaterThan(0);
  } finally {
    clearInterval(writing);
    await store.close();
  }

  // Restore as the runbook says: the backup as hookline.db in an empty data dir, the token beside.
  const files = readdirSync(join(dir, "backups"));
  const backupFile = files.find((f) => f.endsWith(".db"))!;
  expect(files.sort()).toEqual(["admin-token", backupFile].sort());
  // Readable by the operator alone, as the data dir is: the copy holds the endpoints' secrets.
  for (const f of files) expect(statSync(join(dir, "backups", f)).mode & 0o077).toBe(0);
  const restored = join(dir, "restored");
  mkdirSync(restored);
  renameSync(join(dir, "backups", backupFile), join(restored, "hookline.db"));
  const back = new SqliteStore({ path: join(restored, "hookline.db"), synchronous: "normal" });
  try {
    // The history, and what was accepted before the copy's snapshot.
    const { data } = await back.listMessages(app.id, { limit: 250 });
    expect(data).toHaveLength(250);
    const sql = (q: string) =>
      execFileSync("sqlite3", [join(restored, "hookline.db"), q]).toString();
    expect(Number(sql("SELECT count(*) FROM messages"))).toBeGreaterThanOrEqual(5_000);
    expect(sql("PRAGMA integrity_check")).toBe("ok\n");
  } finally {
    await back.close();
  }
});
