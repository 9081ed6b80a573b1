/**
 * The SQLite store's scan walks at most one window of the due index per call: stepping past a
 * full endpoint's long backlog is several short statements on the main thread, not one long one.
 * Its look by endpoint reads at most one window of endpoints per call, for the same reason.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { SCAN_START, type ScanPosition } from "../../src/store/port.js";
import { ENDPOINT_WINDOW, SCAN_WINDOW } from "../../src/store/sqlite/deliveries.js";
import { SqliteStore } from "../../src/store/sqlite/store.js";
import { accept, MINUTE, seedApp, T0 } from "./behaviour/fixtures.js";

describe("a SQLite scan", () => {
  let dir: string;
  let store: SqliteStore;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), "hookline-scan-"));
    store = new SqliteStore({ path: join(dir, "hookline.db"), synchronous: "normal" });
  });
  afterEach(async () => {
    await store.close();
    await rm(dir, { recursive: true, force: true });
  });

  it("walks one window at a time past rows it may not take", async () => {
    const { app, endpoints } = await seedApp(store, [{ channels: ["full"] }, { channels: ["b"] }]);
    const [full, b] = endpoints.map((e) => e.id) as [string, string];
    // Two and a half windows of rows due at one time, then one row of the other endpoint.
    const backlog = Math.floor(2.5 * SCAN_WINDOW);
    for (let i = 0; i < backlog; i++) await accept(store, app.id, { channels: ["full"] });
    await accept(store, app.id, { channels: ["b"] });

    const now = T0 + MINUTE;
    const scan = (from: ScanPosition) =>
      store.scanDue({ now, limit: 10, excludeEndpoints: [full], leaseUntil: now + MINUTE, from });
    const first = await scan(SCAN_START);
    expect(first.claimed).toEqual([]);
    expect(first.reached?.due).toBe(T0);
    const second = await scan(first.reached!);
    expect(second.claimed).toEqual([]);
    const third = await scan(second.reached!);
    expect(third.claimed.map((d) => d.endpointId)).toEqual([b]);
    expect(third.reached).toBeNull();
  });

  it("fills its batch within one window when nothing is passed over", async () => {
    const { app } = await seedApp(store);
    for (let i = 0; i < 30; i++) await accept(store, app.id, { dueAt: T0 + i });
    const first = await store.scanDue({
      now: T0 + MINUTE,
      limit: 10,
      excludeEndpoints: [],
      leaseUntil: T0 + 2 * MINUTE,
      from: SCAN_START,
    });
    expect(first.claimed.map((d) => d.dueAt)).toEqual(Array.from({ length: 10 }, (_, i) => T0 + i));
    expect(first.reached?.due).toBe(T0 + 9);
    // Rows that share a due time with the position's row, and come after it, are not skipped.
    const { app: other } = await seedApp(store);
    await accept(store, other.id, { dueAt: T0 + 9 });
    const next = await store.scanDue({
      now: T0 + MINUTE,
      limit: 100,
      excludeEndpoints: [],
      leaseUntil: T0 + 2 * MINUTE,
      from: first.reached!,
    });
    expect(next.claimed).toHaveLength(21);
    expect(next.reached).toBeNull();
  });

  it("looks at one window of endpoints at a time", async () => {
    const count = ENDPOINT_WINDOW + 10;
    const { app, endpoints } = await seedApp(
      store,
      Array.from({ length: count }, () => ({})),
    );
    // One message fans out to every endpoint: each has one delivery due.
    await accept(store, app.id);
    const look = (after: string) =>
      store.dueEndpoints({ now: T0 + MINUTE, after, excludeEndpoints: [] });
    const first = await look("");
    expect(first.endpoints).toHaveLength(ENDPOINT_WINDOW);
    expect(first.reached).toBe(first.endpoints.at(-1));
    const second = await look(first.reached!);
    expect(second.endpoints).toHaveLength(10);
    expect(second.reached).toBeNull();
    expect(new Set([...first.endpoints, ...second.endpoints])).toEqual(
      new Set(endpoints.map((e) => e.id)),
    );
  });
});
