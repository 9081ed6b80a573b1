/**
 * Group commit for accepted messages. Messages posted in the same turn of the event loop are
 * written in one transaction, each inside its own savepoint, and every caller is answered only
 * after that transaction has committed: each message is still durable before its 2xx, but a
 * burst of posts shares one commit instead of paying one each.
 */
import type { Database as Db } from "better-sqlite3";
import type { AcceptResult, NewMessage } from "../port.js";

interface Waiting {
  msg: NewMessage;
  resolve: (r: AcceptResult) => void;
  reject: (err: unknown) => void;
}

export class AcceptBatcher {
  private queue: Waiting[] = [];
  private scheduled = false;

  constructor(
    private readonly db: Db,
    /** Accepts one message; runs inside the batch's transaction, where it becomes a savepoint. */
    private readonly acceptOne: (msg: NewMessage) => AcceptResult,
    /** Maps a driver error to hookline's error classes (the store's `run`). */
    private readonly guard: <T>(fn: () => T) => T,
  ) {}

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
    const results: ({ ok: true; value: AcceptResult } | { ok: false; err: unknown })[] = [];
    try {
      this.guard(() =>
        this.db.transaction(() => {
          for (const w of batch) {
            // A failing message rolls back only its own savepoint; the others still commit.
            try {
              results.push({ ok: true, value: this.guard(() => this.acceptOne(w.msg)) });
            } catch (err) {
              results.push({ ok: false, err });
            }
          }
        })(),
      );
    } catch (err) {
      for (const w of batch) w.reject(err);
      return;
    }
    batch.forEach((w, i) => {
      const r = results[i]!;
      if (r.ok) w.resolve(r.value);
      else w.reject(r.err);
    });
  }
}
