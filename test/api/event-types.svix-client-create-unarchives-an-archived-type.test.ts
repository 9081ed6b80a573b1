/**
 * Svix's `eventType.create` is "create new or unarchive existing": creating an event type whose
 * name belongs to an archived one brings that one back (201) with the fields sent, since its
 * archive call says that is how an event type is unarchived. Only a live one is a conflict (409).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { systemClock } from "../../src/clock.js";
import type { PostgresStore } from "../../src/store/postgres/store.js";
import type { SqliteStore } from "../../src/store/sqlite/store.js";
import { startApi, type ApiHarness } from "./harness.js";

describe.each(["sqlite", "postgres"] as const)("on %s", (kind) => {
  let api: ApiHarness<SqliteStore | PostgresStore>;
  beforeAll(async () => {
    api = await startApi({}, systemClock, kind);
  });
  afterAll(async () => api.close());

  it("brings an archived event type back with the fields sent", async () => {
    const first = await api.svix.eventType.create({
      name: "invoice.paid",
      description: "An invoice was paid",
      schemas: { "1": { type: "object" } },
      groupName: "billing",
    });
    await api.svix.eventType.delete("invoice.paid");
    expect((await api.svix.eventType.get("invoice.paid")).archived).toBe(true);

    const res = await api.call("POST", "/api/v1/event-type", {
      name: "invoice.paid",
      description: "Paid again",
    });
    expect(res.status).toBe(201);

    const back = await api.svix.eventType.get("invoice.paid");
    expect(back).toMatchObject({
      name: "invoice.paid",
      description: "Paid again",
      archived: false,
      schemas: null,
      groupName: null,
    });
    expect(back.createdAt).toEqual(first.createdAt);
    expect(back.updatedAt.getTime()).toBeGreaterThan(first.updatedAt.getTime());
    const listed = await api.svix.eventType.list();
    expect(listed.data.map((e) => e.name)).toContain("invoice.paid");
  });

  it("still refuses the name of a live event type (409) and changes nothing", async () => {
    await api.svix.eventType.create({ name: "user.created", description: "kept" });
    await expect(
      api.svix.eventType.create({ name: "user.created", description: "other" }),
    ).rejects.toMatchObject({ code: 409 });
    expect((await api.svix.eventType.get("user.created")).description).toBe("kept");
  });
});
