/** Key rotation: every sealed row re-sealed with the current key, batch by batch. */
import type { ResealRequest, Store } from "../store/port.js";

/** Rows scanned and rewritten, per table. */
export type RotationTotals = Record<ResealRequest["table"], { scanned: number; rewritten: number }>;

/**
 * Walks endpoints, messages and the answers kept for idempotency keys, re-sealing rows not sealed
 * with the current key (or, with no key configured, opening them back to plaintext). Short batches
 * keep each transaction brief, so a running hookline keeps accepting meanwhile; running it again
 * is harmless.
 */
export async function rotateKeys(
  store: Store,
  options: { batchSize?: number; onBatch?: (table: string, totals: RotationTotals) => void } = {},
): Promise<RotationTotals> {
  const limit = options.batchSize ?? 500;
  const totals: RotationTotals = {
    endpoints: { scanned: 0, rewritten: 0 },
    messages: { scanned: 0, rewritten: 0 },
    idempotency_keys: { scanned: 0, rewritten: 0 },
  };
  for (const table of ["endpoints", "messages", "idempotency_keys"] as const) {
    let afterId: string | null = "";
    while (afterId !== null) {
      const batch = await store.resealBatch({ table, afterId, limit });
      totals[table].scanned += batch.scanned;
      totals[table].rewritten += batch.rewritten;
      options.onBatch?.(table, totals);
      afterId = batch.lastId;
    }
  }
  return totals;
}
