/**
 * Group commit for attempt results: outcomes finished within a few milliseconds of each other are
 * recorded in one transaction. A delivery stays claimed until its outcome is committed, so a crash
 * before the commit means the attempt is made again (at-least-once), never that it is lost.
 *
 * A commit that fails is tried again, whole, until the store takes it, unless the store refused a
 * value in the batch, which no retry changes (see refusedForContent). One bad outcome must not
 * hold back every other one, nor shutdown, so such a batch is written in halves
 * until the outcome the store refuses stands alone. That one is written again without the
 * receiver's free text (the likeliest culprit), and failing that, left out: its delivery stays
 * claimed in the store and is made again when claims are recovered (the next start, or the
 * fleet's reaping), as after a crash.
 */
import { StoreUnavailableError } from "../errors.js";
import type { DeadLetterChange, DeliveryOutcome, RecordedOutcomes, Store } from "../store/port.js";
import { finishedWithin } from "../finished-within.js";

export interface OutcomeWriterOptions {
  maxBatch: number;
  /**
   * How long the first outcome of a batch waits for others before the commit (0: until the end of
   * the event loop's turn). Nobody waits on these commits, and each one costs the thread that
   * makes it a transaction's fixed price whatever it carries.
   */
  windowMs: number;
  /** Wait before retrying a failed commit (the store may be briefly unavailable). */
  retryDelayMs: number;
  /**
   * Called after each commit with the outcomes of the batch that the store kept (not those of
   * deliveries their sender no longer held) and what they did to the dead-letter queue.
   */
  onCommitted: (kept: readonly DeliveryOutcome[], changes: readonly DeadLetterChange[]) => void;
  onError: (err: unknown) => void;
  /** An outcome the store refused even without its free text: not recorded (see above). */
  onRefused: (outcome: DeliveryOutcome, err: unknown) => void;
}

/** Buffers outcomes and writes them in batches, one commit at a time, in order. */
export class OutcomeWriter {
  private buffer: DeliveryOutcome[] = [];
  private scheduled = false;
  private flushing: Promise<void> = Promise.resolve();
  /** Set by flushWithin once it stopped waiting: nothing is retried any more. */
  private givenUp = false;
  /** Outcomes taken out of `buffer` for the writes under way and not yet settled. */
  private writing = 0;
  /** Outcomes not yet committed (nor refused), by endpoint. */
  private readonly unwritten = new Map<string, number>();

  constructor(
    private readonly store: Store,
    private readonly options: OutcomeWriterOptions,
  ) {}

  get pending(): number {
    return this.buffer.length;
  }

  /**
   * Whether an outcome of the endpoint's is still to be committed: until it is, the store does
   * not yet say what it did (a 410 disabling the endpoint), so the endpoint is not handed to
   * another worker, which would load it from the store.
   */
  holdsUnwritten(endpointId: string): boolean {
    return this.unwritten.has(endpointId);
  }

  push(outcome: DeliveryOutcome): void {
    this.unwritten.set(outcome.endpointId, (this.unwritten.get(outcome.endpointId) ?? 0) + 1);
    this.buffer.push(outcome);
    if (this.buffer.length >= this.options.maxBatch) {
      void this.flush();
    } else if (!this.scheduled) {
      this.scheduled = true;
      const commit = () => {
        this.scheduled = false;
        void this.flush();
      };
      if (this.options.windowMs > 0) setTimeout(commit, this.options.windowMs);
      else setImmediate(commit);
    }
  }

  /** Commits everything buffered so far; resolves when it is durable. */
  flush(): Promise<void> {
    this.flushing = this.flushing.then(() => this.writeAll());
    return this.flushing;
  }

  /**
   * Flushes, for at most `ms`, then stops retrying for good: a store that is away must not keep a
   * stopping process alive. Resolves with how many outcomes were left unwritten.
   */
  async flushWithin(ms: number): Promise<number> {
    if (await finishedWithin(ms, this.flush())) return 0;
    this.givenUp = true;
    return this.buffer.length + this.writing;
  }

  /** Writes again after flushWithin gave up (an engine started again in the same process). */
  resume(): void {
    this.givenUp = false;
  }

  private async writeAll(): Promise<void> {
    while (this.buffer.length && !this.givenUp) {
      const batch = this.buffer.splice(0, this.options.maxBatch);
      this.writing += batch.length;
      await this.write(batch);
    }
  }

  private async write(batch: DeliveryOutcome[], stripped = false): Promise<void> {
    let recorded: RecordedOutcomes;
    for (;;) {
      // Given up while this waited: back in the buffer, unwritten, for a later start to take.
      if (this.givenUp) return this.settle(batch, true);
      try {
        recorded = await this.store.recordAttempts(batch);
        break;
      } catch (err) {
        this.options.onError(err);
        if (refusedForContent(err)) return this.writeApart(batch, stripped, err);
        await new Promise((r) => setTimeout(r, this.options.retryDelayMs));
      }
    }
    this.settle(batch, false);
    this.options.onCommitted(keptOf(batch, recorded.kept), recorded.changes);
  }

  /** The batch is no longer being written: committed (or refused), or put back unwritten. */
  private settle(batch: DeliveryOutcome[], putBack: boolean): void {
    this.writing -= batch.length;
    if (putBack) {
      this.buffer.unshift(...batch);
      return;
    }
    for (const o of batch) {
      const left = this.unwritten.get(o.endpointId)! - 1;
      if (left > 0) this.unwritten.set(o.endpointId, left);
      else this.unwritten.delete(o.endpointId);
    }
  }

  /** A batch the store refused for what it holds: its halves on their own, down to the culprit. */
  private async writeApart(batch: DeliveryOutcome[], stripped: boolean, err: unknown) {
    if (batch.length > 1) {
      const half = Math.ceil(batch.length / 2);
      await this.write(batch.slice(0, half), stripped);
      await this.write(batch.slice(half), stripped);
    } else if (!stripped) await this.write([withoutFreeText(batch[0]!)], true);
    else {
      this.settle(batch, false);
      this.options.onRefused(batch[0]!, err);
    }
  }
}

/**
 * Whether the store refused a batch for a value in it (PostgreSQL's data exceptions and integrity
 * violations, SQLite's constraint, size and type errors), which no retry changes. Anything else (the
 * store away, a timeout, a deadlock retried out, a permission taken away, a bug) is waited out
 * with the whole batch, as it would refuse every outcome alike.
 */
function refusedForContent(err: unknown): boolean {
  if (err instanceof StoreUnavailableError) return false;
  const code = (err as { code?: unknown } | null)?.code;
  if (typeof code !== "string") return false;
  return /^2[23][0-9A-Z]{3}$/.test(code) || /^SQLITE_(CONSTRAINT|TOOBIG|MISMATCH|RANGE)/.test(code);
}

/** The outcome with the receiver's answer and the error's detail left out of its attempt. */
function withoutFreeText(o: DeliveryOutcome): DeliveryOutcome {
  if (!o.attempt) return o;
  const note = "(not recorded: the store refused the receiver's text)";
  return {
    ...o,
    attempt: { ...o.attempt, responseSnippet: note, errorDetail: o.attempt.errorDetail && note },
  };
}

/** The batch's outcomes the store kept, in the batch's order; a delivery's first one only. */
function keptOf(batch: DeliveryOutcome[], keptIds: readonly string[]): DeliveryOutcome[] {
  // Almost always the whole batch (kept ids are distinct, and the batch's own).
  if (keptIds.length === batch.length) return batch;
  const kept = new Set(keptIds);
  return batch.filter((o) => kept.delete(o.deliveryId));
}
