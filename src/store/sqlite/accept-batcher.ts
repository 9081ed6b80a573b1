/**
 * Group commit for accepted messages. Messages posted in the same turn of the event loop are
 * written in one transaction, and every caller is answered only after that transaction has
 * committed: each message is still durable before its 2xx, but a burst of posts shares one commit
 * instead of paying one each. A message that fails must not take the others with it, so if
 * anything in the batch fails, the batch is written again with each message in its own savepoint
 * (the failing one is undone alone); savepoints cost a fifth of a message's writes, and failures
 * are rare, so they are paid only then.
 */
import type { Database as Db } from "better-sqlite3";
import type { AcceptResult, NewMessage } from "../port.js";
import type { Accepted } from "./deliveries.js";

interface Waiting {
  msg: NewMessage;
  resolve: (r: AcceptResult) => void;
  reject: (err: unknown) => void;
}

type Acceptor = (msg: NewMessage) => Accepted;
type Outcome = { ok: true; value: Accepted } | { ok: false; err: unknown };

export class AcceptBatcher {
  private queue: Waiting[] = [];
  private scheduled = false;
  // Made once: better-sqlite3 builds a transaction function with four wrappers and their
  // properties, which costs more than the savepoint it runs.
  /** The whole batch in one transaction; throws if any message fails. */
  private readonly commitAll: (batch: Waiting[]) => Outcome[];
  /** The whole batch in one transaction, each message in a savepoint of its own. */
  private readonly commitEach: (batch: Waiting[]) => Outcome[];
  private readonly savepoint: (acceptOne: Acceptor, msg: NewMessage) => Accepted;

  constructor(
    db: Db,
    /** Makes the function that accepts each message of one batch, inside its transaction. */
    private readonly newAcceptor: () => Acceptor,
    /** Maps a driver error to hookline's error classes (the store's `run`). */
    private readonly guard: <T>(fn: () => T) => T,
  ) {
    this.savepoint = db.transaction((acceptOne: Acceptor, msg: NewMessage) => acceptOne(msg));
    this.commitAll = db.transaction((batch: Waiting[]): Outcome[] => {
      const acceptOne = this.newAcceptor();
      return batch.map((w) => ({ ok: true, value: this.guard(() => acceptOne(w.msg)) }));
    });
    this.commitEach = db.transaction((batch: Waiting[]): Outcome[] => {
      const acceptOne = this.newAcceptor();
      const outcomes: Outcome[] = [];
      for (const w of batch) {
        // A failing message rolls back only its own savepoint; the others still commit.
        try {
          outcomes.push({ ok: true, value: this.guard(() => this.savepoint(acceptOne, w.msg)) });
        } catch (err) {
          outcomes.push({ ok: false, err });
        }
      }
      return outcomes;
    });
  }

  accept(msg: NewMessage): Promise<AcceptResult> {
    return new Promise((resolve, reject) => {
      this.queue.push({ msg, resolve, reject });
      if (this.scheduled) return;
      this.scheduled = true;
      setImmediate(() => this.flush());
    });
  }

  private flush(): void {
    this.scheduled = false;
    const batch = this.queue;
    this.queue = [];
    let outcomes: Outcome[];
    try {
      outcomes = this.guard(() => this.commitAll(batch));
    } catch {
      // Rolled back whole; again, message by message, to learn which failed and keep the rest.
      try {
        outcomes = this.guard(() => this.commitEach(batch));
      } catch (err) {
        for (const w of batch) w.reject(err);
        return;
      }
    }
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
