import { performance } from "node:perf_hooks";
import type { Row } from "./rows.js";

/**
 * Rows read recently, by the key they were looked up with, kept for at most `ttlMs`. SQLite serves
 * one process, and the owner clears this on each of its own writes to the table, so a hit is what
 * the table holds; the time bound only limits how long an edit made outside hookline (an operator
 * with the sqlite3 shell) can go unseen. Rows, not domain objects, are kept: each caller still
 * gets objects of its own to change.
 */
export class RecentRows {
  private readonly entries = new Map<string, { row: Row; until: number }>();

  constructor(
    private readonly ttlMs: number,
    private readonly maxEntries = 10_000,
  ) {}

  get(key: string): Row | undefined {
    const e = this.entries.get(key);
    if (!e) return undefined;
    if (e.until > performance.now()) return e.row;
    this.entries.delete(key);
    return undefined;
  }

  put(key: string, row: Row): void {
    // Bounded: lookups of many distinct keys cannot grow it without limit.
    if (this.entries.size >= this.maxEntries) this.entries.clear();
    this.entries.set(key, { row, until: performance.now() + this.ttlMs });
  }

  clear(): void {
    this.entries.clear();
  }
}
