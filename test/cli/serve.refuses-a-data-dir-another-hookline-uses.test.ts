/**
 * On SQLite a hookline takes its data dir as its own: starting, it puts back in line every
 * delivery left claimed, as a crash's. A second `hookline serve` on the same data dir (a second
 * terminal, an overlapping restart) must stop at once, naming HOOKLINE_DATA_DIR, before it hands
 * out the first one's requests in flight again: the first one's outcomes would then be refused
 * and those deliveries sent twice. Once the first is gone, even by kill -9, the dir is free again.
 */
import { join } from "node:path";
import Database from "better-sqlite3";
import { describe, expect, it } from "vitest";
import { MIGRATIONS } from "../../src/store/sqlite/migrations.js";
import { tempDir, useCleanup } from "../support/cleanup.js";
import { GatedReceiver } from "../support/gated-receiver.js";
import { call, postOneMessage, spawnHookline, spawnServe, stopAfter } from "../support/process.js";

const cleanup = useCleanup();

/** A hookline on `dataDir` with no sender threads, killed with SIGKILL after the test. */
async function hooklineOn(dataDir: string) {
  return stopAfter(
    cleanup,
    await spawnHookline(dataDir, { HOOKLINE_SENDER_THREADS: "0" }),
    "SIGKILL",
  );
}

/** Runs a second `hookline serve` on `dataDir` to its end (stopping it if it did start). */
async function secondServe(dataDir: string): Promise<{ code: number | string; output: string }> {
  const { child, exited, output } = spawnServe(dataDir, {
    HOOKLINE_LOG_LEVEL: "silent",
    HOOKLINE_SENDER_THREADS: "0",
  });
  child.stdout!.on("data", () => {
    if (/listening on/.test(output())) child.kill("SIGTERM");
  });
  return { code: await exited, output: output() };
}

/** The attempts hookline recorded for endpoint `main` of `acme`, waited for up to 20 s. */
async function recordedAttempts(url: string, n: number): Promise<{ status: number }[]> {
  const deadline = Date.now() + 20_000;
  for (;;) {
    const { body } = await call<{ data: { status: number }[] }>(
      url,
      "GET",
      "/api/v1/app/acme/attempt/endpoint/main?limit=100",
    );
    if (body.data.length >= n || Date.now() > deadline) return body.data;
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe("hookline serve on a data dir another hookline uses", () => {
  it("stops naming HOOKLINE_DATA_DIR, and the first one's delivery in flight is recorded once", async () => {
    const dir = tempDir(cleanup, "hookline-dir-in-use-");
    const rx = await GatedReceiver.start();
    cleanup.push(() => rx.close());
    const first = await hooklineOn(dir);
    await postOneMessage(first.url, rx.url());
    await rx.arrived(1);

    const second = await secondServe(dir);
    expect(second.code, second.output).toBe(1);
    expect(second.output.trim()).toMatch(/^hookline: HOOKLINE_DATA_DIR .* is in use by another/);
    expect(second.output).toContain(dir);

    rx.release();
    const attempts = await recordedAttempts(first.url, 1);
    expect(attempts.map((a) => a.status)).toEqual([0]);
    expect(rx.ids).toHaveLength(1);
  }, 60_000);

  it("stops before migrating the database of the one running (an upgrade that did not stop it)", async () => {
    const dir = tempDir(cleanup, "hookline-dir-in-use-");
    await hooklineOn(dir);
    // The running one is of the version before the last migration: its ledger lacks it.
    const db = new Database(join(dir, "hookline.db"), { timeout: 5_000 });
    cleanup.push(async () => void db.close());
    const last = Math.max(...MIGRATIONS.map((m) => m.version));
    db.prepare("DELETE FROM hookline_migrations WHERE version = ?").run(last);

    const second = await secondServe(dir);
    expect(second.code, second.output).toBe(1);
    expect(second.output.trim()).toMatch(/^hookline: HOOKLINE_DATA_DIR .* is in use by another/);
    const ledger = db.prepare("SELECT max(version) AS v FROM hookline_migrations").get() as {
      v: number;
    };
    expect(ledger.v).toBe(last - 1);
  }, 60_000);

  it("is taken by a new hookline once the first was killed", async () => {
    const dir = tempDir(cleanup, "hookline-dir-in-use-");
    const first = await hooklineOn(dir);
    first.child.kill("SIGKILL");
    await first.exited;
    const next = await hooklineOn(dir);
    expect((await call(next.url, "GET", "/api/v1/health")).status).toBe(204);
  }, 60_000);
});
