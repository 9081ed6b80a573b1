/**
 * Changes to one row sent at once to one hookline all land. Each used to read the row, lose the
 * write to another request's and read again, and with twenty at once on PostgreSQL about half
 * were refused 409 after five lost races. One process's changes to a row now take turns; another
 * process's writes are still caught (stored-changes.made-at-once-never-undo-each-other).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { systemClock } from "../../src/clock.js";
import type { PostgresStore } from "../../src/store/postgres/store.js";
import type { SqliteStore } from "../../src/store/sqlite/store.js";
import { startApi, type ApiHarness } from "./harness.js";

const AT_ONCE = 30;
const each = Array.from({ length: AT_ONCE }, (_, i) => i);

describe.each(["sqlite", "postgres"] as const)("on %s", (kind) => {
  let api: ApiHarness<SqliteStore | PostgresStore>;
  let appId = "";
  beforeAll(async () => {
    api = await startApi({}, systemClock, kind);
    appId = (await api.svix.application.create({ name: "at once", uid: "at-once" })).id;
  });
  afterAll(async () => api.close());

  it("every PATCH of one endpoint answers 200, and the headers each added are all kept", async () => {
    const ep = await api.svix.endpoint.create(appId, { url: "https://example.com/hook" });
    const statuses = await Promise.all(
      each.map(async (i) => {
        const patched = await api.call("PATCH", `/api/v1/app/${appId}/endpoint/${ep.id}`, {
          description: `change ${i}`,
        });
        // Headers are patched key by key: a lost update would drop one of them.
        const headers = await api.call("PATCH", `/api/v1/app/at-once/endpoint/${ep.id}/headers`, {
          headers: { [`x-change-${i}`]: String(i) },
        });
        return [patched.status, headers.status];
      }),
    );
    expect(statuses.flat().filter((s) => s !== 200 && s !== 204)).toEqual([]);
    const stored = (await api.store.getEndpoint(ep.id))!;
    expect(Object.keys(stored.headers).sort()).toEqual(each.map((i) => `x-change-${i}`).sort());
  });

  it("every PATCH of one application answers 200", async () => {
    const statuses = await Promise.all(
      each.map(
        async (i) =>
          (await api.call("PATCH", `/api/v1/app/${appId}`, { metadata: { n: String(i) } })).status,
      ),
    );
    expect(statuses.filter((s) => s !== 200)).toEqual([]);
  });

  it("every PATCH of one event type answers 200", async () => {
    await api.svix.eventType.create({ name: "order.placed", description: "first" });
    const statuses = await Promise.all(
      each.map(
        async (i) =>
          (await api.call("PATCH", "/api/v1/event-type/order.placed", { description: `d${i}` }))
            .status,
      ),
    );
    expect(statuses.filter((s) => s !== 200)).toEqual([]);
  });
});
