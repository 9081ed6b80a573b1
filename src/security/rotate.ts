/** Key rotation: every sealed row re-sealed with the current key, batch by batch. */
import type { ResealRequest, Store } from "../store/port.js";

/** A table the rotation walks. */
export type RotatedTable = ResealRequest["table"];

/** Rows scanned and rewritten, per table. */
export type RotationTotals = Record<RotatedTable, { scanned: number; rewritten: number }>;

/** How a rotation ended: its totals, and the table it was stopped in, if asked to stop. */
export interface Rotation {
  totals: RotationTotals;
  stoppedIn: RotatedTable | null;
}

export interface RotationOptions {
  batchSize?: number;
  onBatch?: (table: RotatedTable, totals: RotationTotals) => void;
  /** Asked before each batch: true stops the rotation there, between two batches. */
  stopRequested?: () => boolean;
}

/**
 * Walks endpoints, messages and the answers kept for idempotency keys, re-sealing rows not sealed
 * with the current key (or, with no key configured, opening them back to plaintext). Short batches
 * keep each transaction brief, so a running hookline keeps accepting meanwhile; running it again
 * is harmless, and so is stopping it (or killing it) anywhere: each batch is one transaction, and
 * a row is sealed with one key or the other, never half rewritten.
 */
export async function rotate(store: Store, options: RotationOptions = {}): Promise<Rotation> {
  const limit = options.batchSize ?? 500;
  const totals: RotationTotals = {
    endpoints: { scanned: 0, rewritten: 0 },
    messages: { scanned: 0, rewritten: 0 },
    idempotency_keys: { scanned: 0, rewritten: 0 },
  };
  for (const table of ["endpoints", "messages", "idempotency_keys"] as const) {
    let afterId: string | null = "";
    while (afterId !== null) {
      // SQLite's batches run synchronously: without a turn of the event loop between them, a
      // stop signal would not be heard before the end.
      await new Promise((resolve) => setImmediate(resolve));
      if (options.stopRequested?.()) return { totals, stoppedIn: table };
      const batch = await store.resealBatch({ table, afterId, limit });
      totals[table].scanned += batch.scanned;
      totals[table].rewritten += batch.rewritten;
      options.onBatch?.(table, totals);
      afterId = batch.lastId;
    }
  }
  // A stop signal that came while the last batch waited is heard in the turn of the event loop
  // that reads the batch's answer, possibly after it: one more turn, and it is heard before the
  // caller stops listening, to say the rotation finished after it rather than nothing.
  await new Promise((resolve) => setImmediate(resolve));
  return { totals, stoppedIn: null };
}

/** {@link rotate} to its end, with its totals. */
export async function rotateKeys(
  store: Store,
  options: Omit<RotationOptions, "stopRequested"> = {},
): Promise<RotationTotals> {
  return (await rotate(store, options)).totals;
}
