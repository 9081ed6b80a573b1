/**
 * What a Svix client user does with an event type: create it with every field the model has,
 * read it, send it back changed (`update(name, { ...read, field })`, `patch` likewise), archive it
 * and bring it back, list it with every option the client has and page on, expunge it. Every call
 * must be taken. A type read and sent back with its older single `featureFlag` changed carries its
 * flags as read under `featureFlags`, which left the new flag out: that was refused (422 on
 * featureFlag), where the single flag is the change and takes the place of the one the type shows
 * as its `featureFlag`.
 */
import { Ordering } from "svix";
import { afterAll, beforeAll, expect, it } from "vitest";
import { startApi, type ApiHarness } from "./harness.js";

let api: ApiHarness;
beforeAll(async () => {
  api = await startApi();
});
afterAll(async () => api.close());

const schemas = { "1": { type: "object", properties: { id: { type: "string" } } } };

it("takes every field back as read, with one changed, by PUT and PATCH", async () => {
  const types = api.svix.eventType;
  await types.create({
    name: "order.placed",
    description: "An order was placed",
    archived: false,
    deprecated: false,
    featureFlags: ["beta", "eu"],
    groupName: "orders",
    schemas,
  });
  let read = await types.get("order.placed");
  expect(read).toMatchObject({ featureFlag: "beta", featureFlags: ["beta", "eu"] });

  let after = await types.update("order.placed", { ...read, description: "Placed" });
  expect(after).toMatchObject({
    description: "Placed",
    featureFlags: ["beta", "eu"],
    groupName: "orders",
    schemas,
  });
  read = await types.get("order.placed");
  after = await types.patch("order.placed", { ...read, deprecated: true });
  expect(after).toMatchObject({ deprecated: true, description: "Placed", schemas });
  read = await types.get("order.placed");
  after = await types.patch("order.placed", { ...read, featureFlags: ["eu"] });
  expect([after.featureFlag, after.featureFlags]).toEqual(["eu", ["eu"]]);

  // The older single flag changed on a read: it takes the first flag's place.
  read = await types.get("order.placed");
  after = await types.update("order.placed", { ...read, featureFlag: "gamma" });
  expect([after.featureFlag, after.featureFlags]).toEqual(["gamma", ["gamma"]]);
  read = await types.get("order.placed");
  after = await types.patch("order.placed", { ...read, featureFlags: ["gamma", "eu"] });
  read = await types.get("order.placed");
  after = await types.patch("order.placed", { ...read, featureFlag: "delta" });
  expect([after.featureFlag, after.featureFlags]).toEqual(["delta", ["delta", "eu"]]);
  read = await types.get("order.placed");
  after = await types.update("order.placed", { ...read, featureFlags: null });
  expect([after.featureFlag, after.featureFlags]).toEqual([null, null]);
  read = await types.get("order.placed");
  after = await types.patch("order.placed", { ...read, featureFlag: "solo" });
  expect([after.featureFlag, after.featureFlags]).toEqual(["solo", ["solo"]]);
  expect(await types.get("order.placed")).toEqual(after);

  // One made with a name and description alone.
  await types.create({ name: "order.bare", description: "Bare" });
  const bare = await types.get("order.bare");
  expect(await types.update("order.bare", { ...bare, groupName: "orders" })).toMatchObject({
    groupName: "orders",
    featureFlags: null,
    schemas: null,
  });
  expect(await types.patch("order.bare", { ...bare, description: "Still bare" })).toMatchObject({
    description: "Still bare",
    groupName: null,
  });
});

it("still refuses a featureFlag sent with a list that is not the type's", async () => {
  const read = await api.svix.eventType.get("order.placed");
  await expect(
    api.svix.eventType.patch("order.placed", { ...read, featureFlag: "x", featureFlags: ["y"] }),
  ).rejects.toMatchObject({ code: 422 });
  expect((await api.svix.eventType.get("order.placed")).featureFlags).toEqual(["solo"]);
});

it("archives a type and brings it back as read", async () => {
  const types = api.svix.eventType;
  await types.delete("order.bare");
  let read = await types.get("order.bare");
  expect(read.archived).toBe(true);
  // Sent back still archived, then unarchived by PUT, then by a creation from the read.
  expect((await types.update("order.bare", { ...read, description: "Kept" })).archived).toBe(true);
  read = await types.get("order.bare");
  expect((await types.update("order.bare", { ...read, archived: false })).archived).toBe(false);
  await types.delete("order.bare");
  read = await types.get("order.bare");
  expect((await types.create({ ...read, archived: false })).archived).toBe(false);
});

it("lists with every option the client has, paging on to the end, and expunges", async () => {
  const types = api.svix.eventType;
  await types.create({ name: "order.shipped", description: "Shipped", schemas });
  await types.delete("order.shipped");
  const read = async (options: { order?: Ordering; includeArchived?: boolean }) => {
    const seen: string[] = [];
    let iterator: string | null | undefined = undefined;
    for (;;) {
      const page = await types.list({ limit: 1, withContent: true, iterator, ...options });
      seen.push(...page.data.map((t) => t.name));
      if (page.done) return seen;
      iterator = page.iterator;
    }
  };
  expect(await read({})).toEqual(["order.bare", "order.placed"]);
  expect(await read({ includeArchived: true, order: Ordering.Descending })).toEqual([
    "order.shipped",
    "order.placed",
    "order.bare",
  ]);
  expect(
    (await types.list({ includeArchived: true, withContent: true })).data.find(
      (t) => t.name === "order.shipped",
    )?.schemas,
  ).toEqual(schemas);
  for (const name of ["order.shipped", "order.placed", "order.bare"]) {
    await types.delete(name, { expunge: true });
  }
  expect((await types.list({ includeArchived: true })).data).toEqual([]);
});
