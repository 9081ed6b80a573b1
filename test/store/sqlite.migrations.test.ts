import Database from "better-sqlite3";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { migrate } from "../../src/store/sqlite/database.js";
import { MIGRATIONS } from "../../src/store/sqlite/migrations.js";
import { SqliteStore } from "../../src/store/sqlite/store.js";
import { raceInChildren } from "../support/race-in-children.js";
import { anApplication } from "./behaviour/fixtures.js";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const STORE_MODULE = pathToFileURL(join(ROOT, "src/store/sqlite/store.ts")).href;
const MIGRATE_MODULE = pathToFileURL(join(ROOT, "src/store/sqlite/database.ts")).href;
const MIGRATIONS_MODULE = pathToFileURL(join(ROOT, "src/store/sqlite/migrations.ts")).href;

interface LedgerRow {
  version: number;
  name: string;
  applied_at: number;
}

function readLedger(path: string): LedgerRow[] {
  const db = new Database(path, { readonly: true });
  try {
    return db
      .prepare("SELECT version, name, applied_at FROM hookline_migrations ORDER BY version")
      .all() as LedgerRow[];
  } finally {
    db.close();
  }
}

const everyVersion = () => MIGRATIONS.map(({ version, name }) => ({ version, name }));

// Imports first, then "ready", then wait for the parent's go (stdin closing) before opening.
const released = `
process.stdout.write("ready\\n");
await new Promise((resolve) => process.stdin.on("data", () => {}).once("end", resolve));
`;

describe("sqlite migrations", () => {
  let dir: string;
  let path: string;

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), "hookline-migrations-"));
    path = join(dir, "hookline.db");
  });

  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it("a fresh file gets every migration once, recorded in the ledger", async () => {
    const store = new SqliteStore({ path, synchronous: "normal" });
    await store.ping();
    await store.close();
    const ledger = readLedger(path);
    expect(ledger.map(({ version, name }) => ({ version, name }))).toEqual(everyVersion());
  });

  it("opening the same file again applies nothing and keeps the data", async () => {
    const first = new SqliteStore({ path, synchronous: "normal" });
    const app = await first.createApplication(anApplication({ uid: "kept" }));
    await first.close();
    const before = readLedger(path);

    const second = new SqliteStore({ path, synchronous: "full" });
    expect(await second.findApplication("kept")).toEqual(app);
    await second.close();
    expect(readLedger(path)).toEqual(before);

    const db = new Database(path);
    try {
      expect(migrate(db, MIGRATIONS)).toBe(0);
    } finally {
      db.close();
    }
    expect(readLedger(path)).toEqual(before);
  });

  it("a migration appended later is applied once to an existing file", async () => {
    await new SqliteStore({ path, synchronous: "normal" }).close();
    const next = MIGRATIONS.reduce((max, m) => Math.max(max, m.version), 0) + 1;
    const extended = [
      ...MIGRATIONS,
      { version: next, name: "test table", sql: "CREATE TABLE t (x)" },
    ];
    const db = new Database(path);
    try {
      expect(migrate(db, extended)).toBe(1);
      expect(migrate(db, extended)).toBe(0);
    } finally {
      db.close();
    }
    expect(readLedger(path).map((r) => r.version)).toEqual(extended.map((m) => m.version));
  });

  it("a file a newer hookline migrated is refused, naming both schema versions", async () => {
    await new SqliteStore({ path, synchronous: "normal" }).close();
    const known = MIGRATIONS.reduce((max, m) => Math.max(max, m.version), 0);
    const db = new Database(path);
    db.prepare("INSERT INTO hookline_migrations (version, name, applied_at) VALUES (?, ?, ?)").run(
      known + 1,
      "from a newer hookline",
      Date.now(),
    );
    db.close();
    expect(() => new SqliteStore({ path, synchronous: "normal" })).toThrow(
      new RegExp(
        `migrated by a newer hookline \\(schema version ${known + 1}; this version knows up to ${known}\\)`,
      ),
    );
  });

  it("migration 2 keeps dead letters recorded before it open, counted toward the depth cap", async () => {
    const db = new Database(path);
    try {
      migrate(
        db,
        MIGRATIONS.filter((m) => m.version === 1),
      );
      const insert = db.prepare(`INSERT INTO dead_letters (id, delivery_id, app_id, endpoint_id,
        message_id, event_type, failure_class, reason, signature_headers, state, created_at)
        VALUES (?, ?, 'app_1', ?, 'msg_1', 'x.y', 'exhausted', 'r', '{}', ?, 1000)`);
      insert.run("dlq_1", "dlv_1", "ep_1", "open");
      insert.run("dlq_2", "dlv_2", "ep_1", "open");
      insert.run("dlq_3", "dlv_3", "ep_1", "resolved");
      insert.run("dlq_4", "dlv_4", "ep_2", "open");
      expect(migrate(db, MIGRATIONS)).toBe(MIGRATIONS.length - 1);
      expect(db.prepare("SELECT * FROM dead_letter_depth ORDER BY endpoint_id").all()).toEqual([
        { endpoint_id: "ep_1", open: 2 },
        { endpoint_id: "ep_2", open: 1 },
      ]);
      expect(db.prepare("SELECT DISTINCT updated_at FROM dead_letters").all()).toEqual([
        { updated_at: 1000 },
      ]);
    } finally {
      db.close();
    }
  });

  it("migration 17 takes when a circuit not closed opened from its transitions, where kept", async () => {
    const db = new Database(path);
    try {
      migrate(
        db,
        MIGRATIONS.filter((m) => m.version <= 16),
      );
      const circuit = db.prepare(`INSERT INTO circuits (endpoint_id, state, since, reason,
        next_probe_at, reopen_count) VALUES (?, ?, ?, 'r', NULL, ?)`);
      const step = db.prepare(`INSERT INTO circuit_transitions (endpoint_id, from_state, to_state,
        at, reason) VALUES (?, ?, ?, ?, 'r')`);
      // Opened, closed, opened again at 1000 and reopened twice since.
      circuit.run("ep_reopened", "open", 3000, 2);
      step.run("ep_reopened", "closed", "open", 500);
      step.run("ep_reopened", "half-open", "closed", 800);
      step.run("ep_reopened", "closed", "open", 1000);
      step.run("ep_reopened", "open", "open", 2000);
      step.run("ep_reopened", "open", "open", 3000);
      // Half-open after opening at 1500.
      circuit.run("ep_trial", "half-open", 1600, 0);
      step.run("ep_trial", "closed", "open", 1500);
      step.run("ep_trial", "open", "half-open", 1600);
      // Its opening pruned by retention: not known.
      circuit.run("ep_pruned", "open", 4000, 5);
      step.run("ep_pruned", "open", "open", 4000);
      // Closed: none.
      circuit.run("ep_closed", "closed", 900, 0);
      step.run("ep_closed", "closed", "open", 100);
      step.run("ep_closed", "half-open", "closed", 900);
      migrate(db, MIGRATIONS);
      expect(
        db.prepare("SELECT endpoint_id, opened_at FROM circuits ORDER BY endpoint_id").all(),
      ).toEqual([
        { endpoint_id: "ep_closed", opened_at: null },
        { endpoint_id: "ep_pruned", opened_at: null },
        { endpoint_id: "ep_reopened", opened_at: 1000 },
        { endpoint_id: "ep_trial", opened_at: 1500 },
      ]);
    } finally {
      db.close();
    }
  });

  // Each migration that adds a column to attempts: the attempts made before it read null there.
  it.each([
    [18, "a Retry-After wait", "retry_after_ms"],
    [19, "an ignored Retry-After", "retry_after_ignored"],
  ])(
    "migration %i keeps the attempts made before it, without %s",
    async (version, _without, column) => {
      const db = new Database(path);
      try {
        migrate(
          db,
          MIGRATIONS.filter((m) => m.version < version),
        );
        db.prepare(
          `INSERT INTO attempts (id, delivery_id, app_id, message_id, endpoint_id, at,
          trigger, url, status, error, error_detail, duration_ms, response_snippet, outcome)
          VALUES ('atmpt_1', 'dlv_1', 'app_1', 'msg_1', 'ep_1', 1000, 'first', 'https://r.example',
            503, NULL, NULL, 12, 'busy', 'retryable')`,
        ).run();
        expect(
          migrate(
            db,
            MIGRATIONS.filter((m) => m.version <= version),
          ),
        ).toBe(1);
        expect(db.prepare(`SELECT id, status, ${column} FROM attempts`).all()).toEqual([
          { id: "atmpt_1", status: 503, [column]: null },
        ]);
      } finally {
        db.close();
      }
    },
  );

  it("stores opened at once by several processes on one new file all start", async () => {
    const script = `
const { SqliteStore } = await import(${JSON.stringify(STORE_MODULE)});
${released}
const store = new SqliteStore({ path: ${JSON.stringify(path)}, synchronous: "normal" });
await store.ping();
await store.close();
`;
    await raceInChildren([script, script, script, script]);
    const ledger = readLedger(path);
    expect(ledger.map(({ version, name }) => ({ version, name }))).toEqual(everyVersion());
  });

  it("migrations raced by several processes are applied exactly once in total", async () => {
    const script = `
const { default: Database } = await import("better-sqlite3");
const { migrate, enableWal } = await import(${JSON.stringify(MIGRATE_MODULE)});
const { MIGRATIONS } = await import(${JSON.stringify(MIGRATIONS_MODULE)});
${released}
const db = new Database(${JSON.stringify(path)});
enableWal(db);
process.stdout.write(String(migrate(db, MIGRATIONS)));
db.close();
`;
    const applied = await raceInChildren([script, script, script, script]);
    expect(applied.reduce((sum, n) => sum + Number(n), 0)).toBe(MIGRATIONS.length);
    expect(readLedger(path).map((r) => r.version)).toEqual(MIGRATIONS.map((m) => m.version));
  });
});
