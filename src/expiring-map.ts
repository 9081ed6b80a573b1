/**
 * A map whose entries are kept for at most `ttlMs` after they were put, for short-lived caches of
 * things looked up on every request (tokens, applications). Bounded: when it holds `maxEntries`,
 * it starts again empty, so lookups of many distinct keys cannot grow it without limit. Times
 * come from the caller, so a cache follows whichever clock its owner goes by.
 */
export class ExpiringMap<V> {
  private readonly entries = new Map<string, { value: V; until: number }>();

  constructor(
    private readonly ttlMs: number,
    private readonly maxEntries = 10_000,
  ) {}

  get(key: string, now: number): V | undefined {
    const e = this.entries.get(key);
    if (!e) return undefined;
    if (e.until > now) return e.value;
    this.entries.delete(key);
    return undefined;
  }

  put(key: string, value: V, now: number): void {
    if (this.entries.size >= this.maxEntries) this.entries.clear();
    this.entries.set(key, { value, until: now + this.ttlMs });
  }

  clear(): void {
    this.entries.clear();
  }
}
