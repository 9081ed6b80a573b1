import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startApi, type ApiHarness } from "./harness.js";

let api: ApiHarness;
beforeAll(async () => {
  api = await startApi();
});
afterAll(async () => api.close());

const schemas = { "1": { type: "object", properties: { id: { type: "string" } } } };

describe("event types through the official Svix client", () => {
  it("creates, gets, updates, patches, archives and expunges an event type", async () => {
    const created = await api.svix.eventType.create({
      name: "invoice.paid",
      description: "An invoice was paid",
      schemas,
      featureFlags: ["beta"],
      groupName: "billing",
    });
    expect(created).toMatchObject({
      name: "invoice.paid",
      archived: false,
      deprecated: false,
      featureFlags: ["beta"],
      groupName: "billing",
      schemas,
    });

    expect((await api.svix.eventType.get("invoice.paid")).description).toBe("An invoice was paid");

    const updated = await api.svix.eventType.update("invoice.paid", {
      description: "Paid",
      deprecated: true,
    });
    expect(updated).toMatchObject({ description: "Paid", deprecated: true, schemas: null });

    const patched = await api.svix.eventType.patch("invoice.paid", { groupName: "money" });
    expect(patched).toMatchObject({ description: "Paid", deprecated: true, groupName: "money" });

    await api.svix.eventType.delete("invoice.paid");
    expect((await api.svix.eventType.get("invoice.paid")).archived).toBe(true);
    const visible = await api.svix.eventType.list();
    expect(visible.data.map((e) => e.name)).not.toContain("invoice.paid");
    const all = await api.svix.eventType.list({ includeArchived: true });
    expect(all.data.map((e) => e.name)).toContain("invoice.paid");

    await api.svix.eventType.delete("invoice.paid", { expunge: true });
    await expect(api.svix.eventType.get("invoice.paid")).rejects.toMatchObject({ code: 404 });
  });

  it("lists by name, with schemas only when asked for with_content", async () => {
    for (const name of ["b.two", "a.one", "c.three"]) {
      await api.svix.eventType.create({ name, description: name, schemas });
    }
    const page = await api.svix.eventType.list({ limit: 2 });
    expect(page.data.map((e) => e.name)).toEqual(["a.one", "b.two"]);
    expect(page.data[0]?.schemas ?? null).toBeNull();
    expect(page.done).toBe(false);
    const rest = await api.svix.eventType.list({
      limit: 2,
      iterator: page.iterator,
      withContent: true,
    });
    expect(rest.data.map((e) => e.name)).toEqual(["c.three"]);
    expect(rest.data[0]?.schemas).toEqual(schemas);
    expect(rest.done).toBe(true);
  });

  it("refuses a duplicate name (409) and PUT creates a missing event type", async () => {
    await api.svix.eventType.create({ name: "user.created", description: "x" });
    await expect(
      api.svix.eventType.create({ name: "user.created", description: "y" }),
    ).rejects.toMatchObject({ code: 409 });
    const res = await api.call("PUT", "/api/v1/event-type/user.deleted", { description: "gone" });
    expect(res.status).toBe(201);
    expect((await api.svix.eventType.get("user.deleted")).description).toBe("gone");
  });
});
