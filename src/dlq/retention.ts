/**
 * The retention job: once an hour (and soon after start), deletes what has outlived the retention
 * period — closed dead-letter records, tombstones, finished replay jobs, messages nothing needs
 * any more, expired portal tokens — in small batches, yielding to the event loop between them so deliveries and API
 * calls never wait behind more than one small transaction.
 */
import type { Clock, TimerHandle } from "../clock.js";
import type { PruneResult, Store } from "../store/port.js";

/** Where the retention job reports what it pruned (pino fits). */
export interface RetentionLogger {
  info(obj: object, msg: string): void;
  error(obj: object, msg: string): void;
}

/** How long things are kept, and how the job paces itself. */
export interface RetentionSettings {
  retentionMs: number;
  /** Between runs. */
  intervalMs?: number;
  /** Before the first run after start. */
  firstRunMs?: number;
  /** Rows per transaction. */
  batchSize?: number;
}

type Totals = Omit<PruneResult, "done" | "messagesReached">;

/** See the module comment. */
export class RetentionPruner {
  private timer: TimerHandle | null = null;
  private running = false;
  private halted = false;
  private current: Promise<Totals> | null = null;

  constructor(
    private readonly store: Store,
    private readonly clock: Clock,
    private readonly settings: RetentionSettings,
    private readonly logger?: RetentionLogger,
  ) {}

  start(): void {
    this.running = true;
    this.schedule(this.settings.firstRunMs ?? 60_000);
  }

  /** Stops scheduling and waits for a run in progress to finish its current batch. */
  async stop(): Promise<void> {
    this.running = false;
    this.halted = true;
    if (this.timer) this.clock.clearTimer(this.timer);
    this.timer = null;
    await this.current?.catch(() => {});
  }

  /** Prunes everything due now, batch by batch; resolves with what was deleted. */
  runOnce(): Promise<Totals> {
    this.current ??= this.prune().finally(() => (this.current = null));
    return this.current;
  }

  private schedule(ms: number): void {
    if (!this.running) return;
    this.timer = this.clock.setTimer(() => {
      this.timer = null;
      void this.runOnce()
        .then((totals) => {
          if (Object.values(totals).some((n) => n > 0)) this.logger?.info(totals, "pruned");
        })
        .catch((err: unknown) => this.logger?.error({ err }, "pruning failed"))
        .finally(() => this.schedule(this.settings.intervalMs ?? 3_600_000));
    }, ms);
  }

  private async prune(): Promise<Totals> {
    const totals: Totals = {
      deadLetters: 0,
      overflow: 0,
      replayJobs: 0,
      messages: 0,
      idempotencyKeys: 0,
      circuitTransitions: 0,
      apiTokens: 0,
    };
    // Each run walks the old messages from the oldest: one freed since the last run is found.
    let messagesFrom: number | undefined;
    for (;;) {
      const step = await this.store.pruneExpired({
        now: this.clock.now(),
        retentionMs: this.settings.retentionMs,
        batchSize: this.settings.batchSize ?? 500,
        messagesFrom,
      });
      messagesFrom = step.messagesReached ?? undefined;
      for (const key of Object.keys(totals) as (keyof Totals)[]) totals[key] += step[key];
      if (step.done || this.halted) return totals;
      // Let deliveries and API calls run between batches.
      await new Promise((r) => setImmediate(r));
    }
  }
}
