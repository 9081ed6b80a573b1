/**
 * Group commit for attempt results: outcomes finished in the same moment are recorded in one
 * transaction. A delivery stays claimed until its outcome is committed, so a crash before the
 * commit means the attempt is made again (at-least-once), never that it is lost.
 */
import type { DeadLetterChange, DeliveryOutcome, Store } from "../store/port.js";

export interface OutcomeWriterOptions {
  maxBatch: number;
  /** Wait before retrying a failed commit (the store may be briefly unavailable). */
  retryDelayMs: number;
  /** Called after each commit with the batch and what it did to the dead-letter queue. */
  onCommitted: (batch: readonly DeliveryOutcome[], changes: readonly DeadLetterChange[]) => void;
  onError: (err: unknown) => void;
}

/** Buffers outcomes and writes them in batches, one commit at a time, in order. */
export class OutcomeWriter {
  private buffer: DeliveryOutcome[] = [];
  private scheduled = false;
  private flushing: Promise<void> = Promise.resolve();

  constructor(
    private readonly store: Store,
    private readonly options: OutcomeWriterOptions,
  ) {}

  get pending(): number {
    return this.buffer.length;
  }

  push(outcome: DeliveryOutcome): void {
    this.buffer.push(outcome);
    if (this.buffer.length >= this.options.maxBatch) {
      void this.flush();
    } else if (!this.scheduled) {
      this.scheduled = true;
      // Results that finish in the same turn of the event loop share one commit.
      setImmediate(() => {
        this.scheduled = false;
        void this.flush();
      });
    }
  }

  /** Commits everything buffered so far; resolves when it is durable. */
  flush(): Promise<void> {
    this.flushing = this.flushing.then(() => this.writeAll());
    return this.flushing;
  }

  private async writeAll(): Promise<void> {
    while (this.buffer.length) {
      const batch = this.buffer.splice(0, this.options.maxBatch);
      let changes: DeadLetterChange[];
      for (;;) {
        try {
          changes = await this.store.recordAttempts(batch);
          break;
        } catch (err) {
          this.options.onError(err);
          await new Promise((r) => setTimeout(r, this.options.retryDelayMs));
        }
      }
      this.options.onCommitted(batch, changes);
    }
  }
}
