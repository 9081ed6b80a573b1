/**
 * One commit per turn of the event loop for the embedded store's busiest writes: accepting
 * messages, recording attempts' outcomes and claiming deliveries. Each used to commit a
 * transaction of its own, and on SQLite each commit has a price of its own whatever it carries
 * (the commit itself, and the WAL frames of pages two writes share, written once instead of
 * twice). While messages are posted and delivered together, all three come in most turns. Measured
 * with the store alone (bench/store-turns.ts): 4 % less CPU and 6 % fewer bytes written per
 * message.
 *
 * Writes that can wait for the end of the turn are queued (`later`) and committed together; a
 * claim, whose caller needs its rows now, commits what is queued with it at once (`now`). Each
 * write runs in a savepoint of its own, so one that fails is undone alone and its caller alone
 * hears of it; a commit that fails fails every write of the turn, none of which is then in the
 * file. Nobody is told of a write before its commit: no caller is answered, no outcome counted,
 * no delivery handed on for a write that could still roll back.
 *
 * Nothing is held across an await: a turn's transaction opens and commits in one synchronous
 * stretch, so no other statement of this connection can run inside it.
 */
import type { Database as Db } from "better-sqlite3";

interface Write {
  run: () => unknown;
  done: (value: unknown) => void;
  failed: (err: unknown) => void;
  /** Set by the commit: the write's value, or what it threw (its savepoint rolled back). */
  result?: { ok: true; value: unknown } | { ok: false; err: unknown };
}

export class TurnCommit {
  private queue: Write[] = [];
  private scheduled = false;
  // Made once: better-sqlite3 builds a transaction function with four wrappers each time.
  private readonly commitAll: (writes: readonly Write[]) => void;
  /** Inside the turn's transaction a transaction function is a savepoint. */
  private readonly savepoint: (run: () => unknown) => unknown;

  constructor(
    private readonly db: Db,
    /** Maps a driver error to hookline's error classes (the store's `run`). */
    private readonly guard: <T>(fn: () => T) => T,
  ) {
    this.savepoint = db.transaction((run: () => unknown) => run());
    this.commitAll = db.transaction((writes: readonly Write[]) => {
      for (const w of writes) {
        try {
          w.result = { ok: true, value: this.guard(() => this.savepoint(w.run)) };
        } catch (err) {
          // Disk full or an I/O error can end the whole transaction, not just the savepoint:
          // what follows would run outside it, each statement committing on its own.
          if (!this.db.inTransaction) throw err;
          w.result = { ok: false, err };
        }
      }
    });
  }

  /** Whether writes wait for the turn's commit. */
  get pending(): boolean {
    return this.queue.length > 0;
  }

  /**
   * Queues `run` for the end of this turn. After the commit, `done` gets what it returned, or
   * `failed` what it (or the commit) threw. `run` is called at the commit, not now.
   */
  later<T>(run: () => T, done: (value: T) => void, failed: (err: unknown) => void): void {
    this.queue.push({ run, done: done as (value: unknown) => void, failed });
    if (this.scheduled) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      this.flush();
    });
  }

  /**
   * Runs `run` now, in one transaction with everything queued, and returns what it returned
   * (throws what it threw). The queued writes' callers are told first, in their order.
   */
  now<T>(run: () => T): T {
    let outcome: { ok: true; value: T } | { ok: false; err: unknown } | undefined;
    this.queue.push({
      run,
      done: (value) => (outcome = { ok: true, value: value as T }),
      failed: (err) => (outcome = { ok: false, err }),
    });
    try {
      this.flush();
    } catch (err) {
      if (!outcome) throw err;
      // Telling another caller threw (a bug); this caller's rows are still its to have, not to
      // be stranded claimed. The bug is thrown where nobody is left waiting on it.
      queueMicrotask(() => {
        throw err;
      });
    }
    if (!outcome!.ok) throw outcome!.err;
    return outcome!.value;
  }

  /** Commits what is queued (also as the store closes, so nothing accepted is left unwritten). */
  flush(): void {
    const writes = this.queue;
    if (!writes.length) return;
    this.queue = [];
    try {
      this.guard(() => this.commitAll(writes));
    } catch (err) {
      for (const w of writes) w.failed(err);
      return;
    }
    // Every caller is told, even if telling one throws (a bug): the others' writes are committed,
    // and a caller never told would wait forever. The first such error is thrown after.
    let thrown: { err: unknown } | null = null;
    for (const w of writes) {
      const r = w.result!;
      try {
        if (r.ok) w.done(r.value);
        else w.failed(r.err);
      } catch (err) {
        thrown ??= { err };
      }
    }
    if (thrown) throw thrown.err;
  }
}
