/**
 * The SQLite group commit (accept-batcher.ts) on a small schema of its own, where a commit can be
 * made to fail: a deferred foreign key is checked only at COMMIT.
 */
import Database from "better-sqlite3";
import { describe, expect, it } from "vitest";
import type { AcceptResult, ClaimedDelivery, Intake, NewMessage } from "../../src/store/port.js";
import { acceptedMessage } from "../../src/store/row-mappers.js";
import { AcceptBatcher } from "../../src/store/sqlite/accept-batcher.js";
import type { Accepted } from "../../src/store/sqlite/deliveries.js";
import { TurnCommit } from "../../src/store/sqlite/turn-commit.js";

function setup() {
  const db = new Database(":memory:");
  db.pragma("foreign_keys = ON");
  db.exec(`
    CREATE TABLE apps (id TEXT PRIMARY KEY);
    CREATE TABLE messages (id TEXT PRIMARY KEY, event_id TEXT UNIQUE,
      app_id TEXT NOT NULL REFERENCES apps (id) DEFERRABLE INITIALLY DEFERRED);
    CREATE TABLE deliveries (id TEXT PRIMARY KEY, message_id TEXT NOT NULL);
    INSERT INTO apps VALUES ('app_1');`);
  let acceptors = 0;
  // Like the store's: a repeated eventId answers the first message; each message has a delivery,
  // which its intake (when it has one with room) takes.
  const newAcceptor = () => {
    acceptors++;
    return (msg: NewMessage): Accepted => {
      const first = db.prepare("SELECT id FROM messages WHERE event_id = ?").get(msg.eventId) as
        { id: string } | undefined;
      if (first) {
        const again = message({ ...msg, id: first.id });
        return { message: again, created: false, deliveries: 0, taken: 0 };
      }
      db.prepare("INSERT INTO messages VALUES (?, ?, ?)").run(msg.id, msg.eventId, msg.appId);
      const id = msg.newDeliveryId();
      db.prepare("INSERT INTO deliveries VALUES (?, ?)").run(id, msg.id);
      const taken = msg.intake && msg.intake.room("ep_1", 0, 0) > 0 ? [claimed(id, msg)] : [];
      return {
        message: message(msg),
        created: true,
        deliveries: 1,
        taken: taken.length,
        handOver: taken,
      };
    };
  };
  const batcher = new AcceptBatcher(
    db,
    newAcceptor,
    (fn) => fn(),
    new TurnCommit(db, (fn) => fn()),
  );
  const ids = (table: string) =>
    (db.prepare(`SELECT id FROM ${table} ORDER BY id`).all() as { id: string }[]).map((r) => r.id);
  return { db, batcher, ids, acceptors: () => acceptors };
}

function msg(id: string, over: Partial<NewMessage> = {}): NewMessage {
  return {
    id,
    appId: "app_1",
    eventType: "invoice.paid",
    eventId: null,
    channels: null,
    tags: null,
    payload: Buffer.from("{}"),
    now: 0,
    dueAt: 0,
    newDeliveryId: () => `dlv_${id}`,
    ...over,
  };
}

function claimed(id: string, m: NewMessage): ClaimedDelivery {
  return {
    id,
    appId: m.appId,
    messageId: m.id,
    endpointId: "ep_1",
    origin: "message",
    attemptCount: 0,
    firstAttemptAt: null,
    lastDelayMs: null,
    dueAt: m.dueAt,
    eventType: m.eventType,
    payload: m.payload,
  };
}

/** An intake that takes everything and notes what it was handed, and whether it was committed. */
function recordingIntake(db: Database.Database) {
  const handed: { ids: string[]; inTransaction: boolean }[] = [];
  const intake: Intake = {
    room: () => 1,
    leaseUntil: () => 0,
    handOver: (taken) =>
      handed.push({ ids: taken.map((d) => d.id), inTransaction: db.inTransaction }),
  };
  return { intake, handed };
}

const message = (m: NewMessage): AcceptResult["message"] => acceptedMessage(m);

describe("the SQLite group commit", () => {
  it("writes the messages of one turn in one transaction and answers each after its commit", async () => {
    const t = setup();
    const answered = ["a", "b", "c"].map((id) =>
      t.batcher.accept(msg(id)).then((r) => {
        // Answered only once the transaction is over, with everything of the batch visible.
        expect(t.db.inTransaction).toBe(false);
        expect(t.ids("messages")).toEqual(["a", "b", "c"]);
        return r.created;
      }),
    );
    expect(await Promise.all(answered)).toEqual([true, true, true]);
    expect(t.acceptors()).toBe(1);
    expect(t.ids("deliveries")).toEqual(["dlv_a", "dlv_b", "dlv_c"]);
  });

  it("a failing commit answers every message of the batch with the error and writes none", async () => {
    const t = setup();
    const results = await Promise.allSettled([
      t.batcher.accept(msg("a")),
      // Its application does not exist: the deferred foreign key fails the COMMIT itself.
      t.batcher.accept(msg("b", { appId: "app_gone" })),
      t.batcher.accept(msg("c")),
    ]);
    expect(results.map((r) => r.status)).toEqual(["rejected", "rejected", "rejected"]);
    expect(String((results[0] as PromiseRejectedResult).reason)).toMatch(/FOREIGN KEY/);
    expect(t.ids("messages")).toEqual([]);
    expect(t.ids("deliveries")).toEqual([]);
    expect(t.db.inTransaction).toBe(false);

    // The next turn's batch is unaffected.
    expect((await t.batcher.accept(msg("d"))).created).toBe(true);
    expect(t.ids("messages")).toEqual(["d"]);
  });

  it("a message that fails part-way is undone alone; the rest of its batch commits", async () => {
    const t = setup();
    const results = await Promise.allSettled([
      t.batcher.accept(msg("a")),
      // Its message row is written, then its delivery collides with a's: only b is undone.
      t.batcher.accept(msg("b", { newDeliveryId: () => "dlv_a" })),
      t.batcher.accept(msg("c")),
    ]);
    expect(results.map((r) => r.status)).toEqual(["fulfilled", "rejected", "fulfilled"]);
    expect(String((results[1] as PromiseRejectedResult).reason)).toMatch(/UNIQUE/);
    expect(t.ids("messages")).toEqual(["a", "c"]);
    expect(t.ids("deliveries")).toEqual(["dlv_a", "dlv_c"]);
  });

  it("messages of one batch that share an eventId behave as if posted one after another", async () => {
    const t = setup();
    const [first, second] = await Promise.all([
      t.batcher.accept(msg("a", { eventId: "evt_1" })),
      t.batcher.accept(msg("b", { eventId: "evt_1" })),
    ]);
    expect(t.acceptors()).toBe(1);
    expect(first).toMatchObject({ created: true, message: { id: "a" } });
    expect(second).toMatchObject({ created: false, deliveries: 0, message: { id: "a" } });
    expect(t.ids("messages")).toEqual(["a"]);
    expect(t.ids("deliveries")).toEqual(["dlv_a"]);
  });

  it("hands what the intake took to it after the commit, before any caller is answered", async () => {
    const t = setup();
    const { intake, handed } = recordingIntake(t.db);
    const answered: string[] = [];
    const results = await Promise.all(
      ["a", "b"].map((id) =>
        t.batcher.accept(msg(id, { intake })).then((r) => {
          answered.push(`${id} after ${handed.length} hand-overs`);
          return r;
        }),
      ),
    );
    expect(handed).toEqual([
      { ids: ["dlv_a"], inTransaction: false },
      { ids: ["dlv_b"], inTransaction: false },
    ]);
    expect(answered).toEqual(["a after 2 hand-overs", "b after 2 hand-overs"]);
    // The caller learns how many were taken, not the deliveries themselves.
    expect(results.map((r) => [r.taken, "handOver" in r])).toEqual([
      [1, false],
      [1, false],
    ]);
  });

  it("hands over nothing from a batch that rolled back, and only the survivors of a retried one", async () => {
    const t = setup();
    const { intake, handed } = recordingIntake(t.db);
    await Promise.allSettled([
      t.batcher.accept(msg("a", { intake })),
      t.batcher.accept(msg("b", { appId: "app_gone", intake })),
    ]);
    expect(handed).toEqual([]);

    await Promise.allSettled([
      t.batcher.accept(msg("c", { intake })),
      t.batcher.accept(msg("d", { newDeliveryId: () => "dlv_c", intake })),
      t.batcher.accept(msg("e", { intake })),
    ]);
    // The first attempt failed whole and was made again message by message: d alone was undone.
    expect(handed.map((h) => h.ids)).toEqual([["dlv_c"], ["dlv_e"]]);
    expect(t.ids("deliveries")).toEqual(["dlv_c", "dlv_e"]);
  });
});
