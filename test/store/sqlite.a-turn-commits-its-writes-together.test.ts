/**
 * The SQLite store's turn commit (turn-commit.ts): the busiest writes of one turn of the event loop
 * share one transaction, each in a savepoint of its own, and nobody hears of a write before its
 * commit. A small schema of its own, on a file, so that a second connection sees only what is
 * committed; a deferred foreign key makes a COMMIT itself fail.
 */
import Database from "better-sqlite3";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { TurnCommit } from "../../src/store/sqlite/turn-commit.js";
import { SqliteStore } from "../../src/store/sqlite/store.js";
import { anApplication, anEndpoint } from "./behaviour/fixtures.js";
import { newId } from "../../src/ids.js";
import { tempDir, useCleanup } from "../support/cleanup.js";

const cleanup = useCleanup();

function setup() {
  const path = join(tempDir(cleanup, "hookline-turn-"), "turn.db");
  const db = new Database(path);
  db.pragma("journal_mode = WAL");
  db.pragma("foreign_keys = ON");
  db.exec(`
    CREATE TABLE owners (id TEXT PRIMARY KEY);
    CREATE TABLE rows (id TEXT PRIMARY KEY,
      owner TEXT REFERENCES owners (id) DEFERRABLE INITIALLY DEFERRED);
    INSERT INTO owners VALUES ('o');`);
  const reader = new Database(path, { readonly: true });
  const committed = () =>
    (reader.prepare("SELECT id FROM rows ORDER BY id").all() as { id: string }[]).map((r) => r.id);
  const turn = new TurnCommit(db, (fn) => fn());
  const insert =
    (id: string, owner = "o") =>
    () => {
      db.prepare("INSERT INTO rows VALUES (?, ?)").run(id, owner);
      return id;
    };
  /** Queues an insert; resolves with what its caller was told, and what was committed then. */
  const later = (id: string, owner?: string) =>
    new Promise<{ told: string; committed: string[]; inTransaction: boolean }>((resolve, reject) =>
      turn.later(
        insert(id, owner),
        (value) =>
          resolve({ told: value, committed: committed(), inTransaction: db.inTransaction }),
        reject,
      ),
    );
  return { db, turn, insert, later, committed };
}

describe("the SQLite turn commit", () => {
  it("commits the writes queued in one turn together, and tells each caller only after the commit", async () => {
    const t = setup();
    const told = await Promise.all([t.later("a"), t.later("b"), t.later("c")]);
    for (const [i, id] of ["a", "b", "c"].entries()) {
      // Every caller is told once the other connection sees the whole turn.
      expect(told[i]).toEqual({ told: id, committed: ["a", "b", "c"], inTransaction: false });
    }
  });

  it("undoes a write that fails alone: its caller hears the error, the others commit", async () => {
    const t = setup();
    const results = await Promise.allSettled([
      t.later("a"),
      t.later("a"), // the same id again: its savepoint is rolled back
      t.later("c"),
    ]);
    expect(results.map((r) => r.status)).toEqual(["fulfilled", "rejected", "fulfilled"]);
    expect(String((results[1] as PromiseRejectedResult).reason)).toMatch(/UNIQUE/);
    expect(t.committed()).toEqual(["a", "c"]);
  });

  it("a claim commits what is queued with it at once, and those callers are told first", async () => {
    const t = setup();
    const order: string[] = [];
    const queued = t.later("a").then((r) => {
      order.push("a told");
      return r;
    });
    t.turn.later(
      t.insert("b"),
      () => order.push("b done"),
      () => order.push("b failed"),
    );
    const value = t.turn.now(() => {
      order.push("claim runs");
      return t.committed().length; // inside the transaction: a and b are not committed yet
    });
    order.push("claim returned");
    expect(value).toBe(0);
    expect(t.committed()).toEqual(["a", "b"]);
    expect(t.turn.pending).toBe(false);
    // b's callback is synchronous; a's promise resolves in the next microtask.
    expect(order).toEqual(["claim runs", "b done", "claim returned"]);
    await queued;
    expect(order).toContain("a told");
  });

  it("a write that now() runs throws to its caller; the queued writes still commit", () => {
    const t = setup();
    let queued = "";
    t.turn.later(
      t.insert("a"),
      (v) => (queued = v),
      () => (queued = "failed"),
    );
    expect(() => t.turn.now(t.insert("a"))).toThrow(/UNIQUE/);
    expect(queued).toBe("a");
    expect(t.committed()).toEqual(["a"]);
  });

  it("tells every caller of a turn even when telling one of them throws", () => {
    const t = setup();
    const told: string[] = [];
    t.turn.later(
      t.insert("a"),
      () => {
        throw new Error("a caller's bug");
      },
      () => told.push("a failed"),
    );
    t.turn.later(
      t.insert("b"),
      (v) => told.push(v),
      () => told.push("b failed"),
    );
    expect(() => t.turn.flush()).toThrow(/a caller's bug/);
    expect(told).toEqual(["b"]);
    expect(t.committed()).toEqual(["a", "b"]);
  });

  it("a commit that fails fails every write of its turn, and none of them is in the file", async () => {
    const t = setup();
    const results = await Promise.allSettled([
      t.later("a"),
      t.later("b", "nobody"), // the deferred foreign key fails the COMMIT itself
      t.later("c"),
    ]);
    expect(results.map((r) => r.status)).toEqual(["rejected", "rejected", "rejected"]);
    expect(String((results[0] as PromiseRejectedResult).reason)).toMatch(/FOREIGN KEY/);
    expect(t.committed()).toEqual([]);
    expect(t.db.inTransaction).toBe(false);
    // The next turn is unaffected.
    expect((await t.later("d")).committed).toEqual(["d"]);
  });

  it("closing the store writes the messages that waited for the turn's commit", async () => {
    const path = join(tempDir(cleanup, "hookline-turn-"), "hookline.db");
    const store = new SqliteStore({ path, synchronous: "normal" });
    const app = await store.createApplication(anApplication());
    await store.createEndpoint(anEndpoint(app.id));
    const now = Date.now();
    const accepted = store.acceptMessage({
      id: newId("msg", now),
      appId: app.id,
      eventType: "invoice.paid",
      eventId: null,
      channels: null,
      tags: null,
      payload: Buffer.from('{"ok":true}'),
      now,
      dueAt: now,
      deliverAt: null,
      newDeliveryId: () => newId("dlv", now),
    });
    await store.close(); // before the turn ended
    const result = await accepted;
    expect(result).toMatchObject({ created: true, deliveries: 1 });
    const again = new SqliteStore({ path, synchronous: "normal" });
    try {
      expect(await again.findMessage(app.id, result.message.id)).not.toBeNull();
    } finally {
      await again.close();
    }
  });
});
