/**
 * What requests holding idempotency keys could not write because the store was away: an answer
 * to keep, or a key to free (the request failed, most often with that same 503). Left as it was,
 * the key would stay locked to the client's retry, sent after Retry-After, until its lock ran out.
 * This process keeps each such write for as long as its key's lock lasts, and writes it as soon
 * as the store takes it: before it begins a request with that key, and about once a second
 * meanwhile, for a retry that reaches another process.
 */
import type { Clock, TimerHandle } from "../clock.js";
import { StoreUnavailableError } from "../errors.js";
import type { HeldIdempotencyKey, Store } from "../store/port.js";

/** A key as a request holds it, with the end of its lock. */
export interface KeyInHand {
  held: HeldIdempotencyKey;
  lockedUntil: number;
}

/** What a request leaves of its key: the answer to keep, or null to free it. */
export type KeyOutcome = { status: number; body: string } | null;

interface Unsettled {
  key: KeyInHand;
  outcome: KeyOutcome;
}

/** How often writes the store could not take are tried again. */
const RETRY_MS = 1_000;
/**
 * Writes kept at most; past it, a key waits out its lock. Only requests in flight as the store
 * went away add to it: requests arriving while it is away take no key.
 */
const MAX_UNSETTLED = 1_000;

export class UnsettledKeys {
  private readonly unsettled = new Map<string, Unsettled>();
  private timer: TimerHandle | null = null;
  private closed = false;

  constructor(private readonly deps: { store: Store; clock: Clock }) {}

  /**
   * Writes what a request leaves of its key. One the store cannot take now is kept and tried
   * again; any other failure is thrown.
   */
  async settle(key: KeyInHand, outcome: KeyOutcome): Promise<void> {
    try {
      await this.write({ key, outcome });
    } catch (err) {
      if (!(err instanceof StoreUnavailableError)) throw err;
      this.keep({ key, outcome });
    }
  }

  /**
   * Writes it without being waited for: kept at once, as a write the store has not taken yet, and
   * tried straight away. For a request that failed because the store is away, whose next call
   * would likely wait as long again.
   */
  settleSoon(key: KeyInHand, outcome: KeyOutcome): void {
    const entry = this.keep({ key, outcome });
    const writing = entry ? this.writeKept(entry) : this.write({ key, outcome });
    writing.catch(() => undefined);
  }

  /**
   * Before a request begins with a key: writes what an earlier request of this process left of
   * it, so the request is answered by that write. Throws while the store cannot take it.
   */
  async settleBefore(scope: string, key: string): Promise<void> {
    const entry = this.unsettled.get(id({ scope, key }));
    if (entry) await this.writeKept(entry);
  }

  /** Stops trying: a key still unsettled is free again when its lock ends. */
  close(): void {
    this.closed = true;
    if (this.timer) this.deps.clock.clearTimer(this.timer);
    this.timer = null;
  }

  private keep(entry: Unsettled): Unsettled | null {
    if (this.closed || this.unsettled.size >= MAX_UNSETTLED) return null;
    this.unsettled.set(id(entry.key.held), entry);
    this.arm();
    return entry;
  }

  private arm(): void {
    if (this.timer || this.closed) return;
    this.timer = this.deps.clock.setTimer(() => {
      this.timer = null;
      void this.retry().finally(() => {
        if (this.unsettled.size > 0) this.arm();
      });
    }, RETRY_MS);
  }

  // One at a time, and none more once the store refuses one: it would refuse the others too.
  private async retry(): Promise<void> {
    for (const entry of [...this.unsettled.values()]) {
      try {
        await this.writeKept(entry);
      } catch (err) {
        if (err instanceof StoreUnavailableError) return;
      }
    }
  }

  private async writeKept(entry: Unsettled): Promise<void> {
    const name = id(entry.key.held);
    // Past its lock the key is free anyway, and a repeat may hold it.
    if (this.deps.clock.now() < entry.key.lockedUntil) {
      try {
        await this.write(entry);
      } catch (err) {
        if (err instanceof StoreUnavailableError) throw err;
      }
    }
    if (this.unsettled.get(name) === entry) this.unsettled.delete(name);
  }

  private async write({ key, outcome }: Unsettled): Promise<void> {
    if (outcome) await this.deps.store.finishIdempotent(key.held, outcome.status, outcome.body);
    else await this.deps.store.abandonIdempotent(key.held);
  }
}

function id(key: { scope: string; key: string }): string {
  // A scope holding a NUL takes no key (see idempotency.ts).
  return `${key.scope}\0${key.key}`;
}
