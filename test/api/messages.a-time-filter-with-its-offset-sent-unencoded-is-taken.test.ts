/**
 * A time filter with a positive offset typed into a URL as it is written
 * (`?after=2026-01-01T13:00:00+01:00`, as curl sends it) reaches hookline with a space for the
 * `+`, which a query string means. It was refused as "must be an ISO-8601 date-time", naming a
 * time that is one; the space can only have been the `+`, and is taken as it. A negative offset
 * and `Z` never had the problem.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FakeClock } from "../support/fake-clock.js";
import { startApi, type ApiHarness } from "./harness.js";

const clock = new FakeClock(Date.UTC(2026, 0, 1, 12, 0, 0));
let api: ApiHarness;
let appId: string;
const ids: string[] = [];

beforeAll(async () => {
  api = await startApi({}, clock);
  appId = (await api.svix.application.create({ name: "Offsets" })).id;
  // One message at 12:00 UTC, one at 12:30 UTC.
  for (const n of [1, 2]) {
    const res = await api.call("POST", `/api/v1/app/${appId}/msg`, {
      eventType: "clock.tick",
      payload: { n },
    });
    ids.push(((await res.json()) as { id: string }).id);
    clock.advance(30 * 60_000);
  }
});
afterAll(async () => api.close());

async function listed(query: string): Promise<{ status: number; ids: string[]; body: unknown }> {
  const res = await api.call("GET", `/api/v1/app/${appId}/msg?with_content=false&${query}`);
  const body = (await res.json()) as { data?: { id: string }[] };
  return { status: res.status, ids: (body.data ?? []).map((m) => m.id), body };
}

describe("a message list filtered by a time whose + offset was not percent-encoded", () => {
  it("takes the offset as sent (13:15+01:00 is 12:15 UTC)", async () => {
    const after = await listed("after=2026-01-01T13:15:00+01:00");
    expect(after.status).toBe(200);
    expect(after.ids).toEqual([ids[1]]);
    const before = await listed("before=2026-01-01T13:15:00+01:00");
    expect(before.status).toBe(200);
    expect(before.ids).toEqual([ids[0]]);
  });

  it("answers the same as the percent-encoded time", async () => {
    const encoded = await listed(`after=${encodeURIComponent("2026-01-01T13:15:00+01:00")}`);
    expect(encoded.ids).toEqual([ids[1]]);
  });

  it("leaves out a message made at the very time, on either side (as api.md says)", async () => {
    expect((await listed("after=2026-01-01T13:30:00+01:00")).ids).toEqual([]);
    expect((await listed("before=2026-01-01T12:30:00Z")).ids).toEqual([ids[0]]);
    expect((await listed("after=2026-01-01T12:29:59.999Z")).ids).toEqual([ids[1]]);
  });

  it("still refuses a time that is none, naming the filter", async () => {
    const bad = await listed("after=2026-01-01 13:15:00");
    expect(bad.status).toBe(422);
    expect(JSON.stringify(bad.body)).toContain('"after"');
  });
});
