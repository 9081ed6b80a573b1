/**
 * An `eventId` is the caller's key for a message: two different eventIds are two messages, and the
 * eventId read back is the one sent. JSON can spell a lone UTF-16 surrogate (`"\ud800"`), which no
 * UTF-8 text column can hold: the store turns it into U+FFFD (PostgreSQL) or into bytes read back
 * as U+FFFD (SQLite). Such an eventId must be refused (422 naming it), never stored as another one.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { systemClock } from "../../src/clock.js";
import type { PostgresStore } from "../../src/store/postgres/store.js";
import type { SqliteStore } from "../../src/store/sqlite/store.js";
import { startApi, type ApiHarness } from "./harness.js";

describe.each(["sqlite", "postgres"] as const)("on %s", (kind) => {
  let api: ApiHarness<SqliteStore | PostgresStore>;
  let appId = "";
  beforeAll(async () => {
    api = await startApi({}, systemClock, kind);
    appId = (await api.svix.application.create({ name: "event ids" })).id;
    await api.svix.endpoint.create(appId, { url: "https://example.com/hook" });
  });
  afterAll(async () => api.close());

  // Raw JSON text: the escapes reach the server as written.
  const post = (eventId: string, n: number) =>
    api.call(
      "POST",
      `/api/v1/app/${appId}/msg`,
      `{"eventType":"order.placed","eventId":"${eventId}","payload":{"n":${n}}}`,
    );

  it("refuses an eventId holding a lone surrogate, or reads it back as sent", async () => {
    const lone = await post("order-\\ud800", 1);
    if (lone.status === 422) {
      const body = (await lone.json()) as { detail: { loc: unknown[] }[] };
      expect(body.detail.map((p) => p.loc)).toContainEqual(["body", "eventId"]);
      return;
    }
    expect(lone.status).toBe(202);
    const { id } = (await lone.json()) as { id: string };
    const stored = (await (await api.call("GET", `/api/v1/app/${appId}/msg/${id}`)).json()) as {
      eventId: string;
    };
    expect(stored.eventId).toBe("order-\ud800");
  });

  it("never answers a new, well-formed eventId with another message as its duplicate", async () => {
    await post("invoice-\\udbff", 1);
    // Nobody has sent this eventId: it is a new message (202) with its own payload.
    const other = await post("invoice-\\ufffd", 2);
    expect(other.status).toBe(202);
    expect(((await other.json()) as { payload: unknown }).payload).toEqual({ n: 2 });
  });
});
