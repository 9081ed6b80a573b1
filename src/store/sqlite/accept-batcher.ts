/**
 * Group commit for accepted messages. Messages posted in the same turn of the event loop are
 * written in one transaction, the turn's (turn-commit.ts), and every caller is answered only after
 * it has committed: each message is still durable before its 2xx, but a burst of posts shares one
 * commit instead of paying one each. A message that fails must not take the others with it, so if
 * anything in the batch fails, the batch is written again with each message in its own savepoint
 * (the failing one is undone alone); savepoints cost a fifth of a message's writes, and failures
 * are rare, so they are paid only then.
 */
import type { Database as Db } from "better-sqlite3";
import type { AcceptResult, NewMessage } from "../port.js";
import type { Accepted } from "./deliveries.js";
import type { TurnCommit } from "./turn-commit.js";

interface Waiting {
  msg: NewMessage;
  resolve: (r: AcceptResult) => void;
  reject: (err: unknown) => void;
}

type Acceptor = (msg: NewMessage) => Accepted;
type Outcome = { ok: true; value: Accepted } | { ok: false; err: unknown };

export class AcceptBatcher {
  private queue: Waiting[] = [];
  // Made once: better-sqlite3 builds a transaction function with four wrappers and their
  // properties, which costs more than the savepoint it runs.
  /** The whole batch; throws if any message fails. Inside the turn's commit, a savepoint. */
  private readonly writeAll: (batch: Waiting[]) => Outcome[];
  private readonly savepoint: (acceptOne: Acceptor, msg: NewMessage) => Accepted;

  constructor(
    private readonly db: Db,
    /** Makes the function that accepts each message of one batch, inside its transaction. */
    private readonly newAcceptor: () => Acceptor,
    /** Maps a driver error to hookline's error classes (the store's `run`). */
    private readonly guard: <T>(fn: () => T) => T,
    /** The turn's commit, which the batch shares with the turn's other writes. */
    private readonly turn: TurnCommit,
  ) {
    this.savepoint = db.transaction((acceptOne: Acceptor, msg: NewMessage) => acceptOne(msg));
    this.writeAll = db.transaction((batch: Waiting[]): Outcome[] => {
      const acceptOne = this.newAcceptor();
      return batch.map((w) => ({ ok: true, value: this.guard(() => acceptOne(w.msg)) }));
    });
  }

  accept(msg: NewMessage): Promise<AcceptResult> {
    return new Promise((resolve, reject) => {
      this.queue.push({ msg, resolve, reject });
      if (this.queue.length > 1) return;
      // The batch is what has been posted by the time the turn commits, not only this message.
      let batch: Waiting[] = [];
      this.turn.later(
        () => {
          batch = this.queue;
          this.queue = [];
          return this.write(batch);
        },
        (outcomes) => this.answer(batch, outcomes),
        (err) => {
          // The commit failed, or never began (the batch then still waits in the queue).
          if (!batch.length) [batch, this.queue] = [this.queue, []];
          for (const w of batch) w.reject(err);
        },
      );
    });
  }

  private write(batch: Waiting[]): Outcome[] {
    try {
      return this.writeAll(batch);
    } catch (err) {
      // The disk full or an I/O error may have ended the turn's transaction: nothing to retry in.
      if (!this.db.inTransaction) throw err;
      // Undone whole; again, message by message, to learn which failed and keep the rest.
      const acceptOne = this.newAcceptor();
      return batch.map((w): Outcome => {
        // A failing message rolls back only its own savepoint; the others still commit.
        try {
          return { ok: true, value: this.guard(() => this.savepoint(acceptOne, w.msg)) };
        } catch (err) {
          if (!this.db.inTransaction) throw err;
          return { ok: false, err };
        }
      });
    }
  }

  private answer(batch: Waiting[], outcomes: Outcome[]): void {
    // Committed: what the intake took is the engine's now, handed over before any caller hears
    // back and before anything else runs, so no claim can come between.
    batch.forEach((w, i) => {
      const r = outcomes[i]!;
      if (!r.ok) return w.reject(r.err);
      const { handOver, ...result } = r.value;
      if (handOver?.length) w.msg.intake!.handOver(handOver);
      w.resolve(result);
    });
  }
}
