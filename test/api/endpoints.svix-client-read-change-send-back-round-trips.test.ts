/**
 * What a Svix client user does with an endpoint: create it with every field the model has (headers
 * and secret included), read it, send it back changed (`update(id, { ...read, field })`, `patch`
 * likewise), the same with its headers and secret, read its stats, list and page on, delete it.
 * Every call must be taken. The read carries the rate limit under both its names, so changing one
 * sent the old value under the other: that was refused (422 on throttleRate) where the one that
 * differs from the stored limit is the change.
 */
import { Ordering } from "svix";
import { afterAll, beforeAll, expect, it } from "vitest";
import { startApi, type ApiHarness } from "./harness.js";

let api: ApiHarness;
beforeAll(async () => {
  api = await startApi();
  await api.svix.application.create({ name: "Acme", uid: "acme" });
  await api.svix.eventType.create({ name: "order.placed", description: "An order" });
});
afterAll(async () => api.close());

const secret = `whsec_${Buffer.alloc(32, 7).toString("base64")}`;

it("takes every field back as read, with one changed, by PUT and PATCH", async () => {
  const svix = api.svix;
  const made = await svix.endpoint.create("acme", {
    url: "http://127.0.0.1:9/orders",
    uid: "orders",
    description: "Orders",
    version: 1,
    disabled: false,
    filterTypes: ["order.placed"],
    channels: ["eu"],
    metadata: { team: "shop" },
    rateLimit: 10,
    headers: { "X-Team": "shop" },
    secret,
  });
  expect(made).toMatchObject({ uid: "orders", rateLimit: 10, throttleRate: 10 });

  let read = await svix.endpoint.get("acme", "orders");
  let after = await svix.endpoint.update("acme", "orders", { ...read, description: "All orders" });
  expect(after).toMatchObject({
    description: "All orders",
    uid: "orders",
    filterTypes: ["order.placed"],
    channels: ["eu"],
    metadata: { team: "shop" },
    rateLimit: 10,
  });

  read = await svix.endpoint.get("acme", "orders");
  after = await svix.endpoint.update("acme", made.id, { ...read, rateLimit: 20 });
  expect([after.rateLimit, after.throttleRate, after.uid]).toEqual([20, 20, "orders"]);
  read = await svix.endpoint.get("acme", "orders");
  after = await svix.endpoint.update("acme", "orders", { ...read, throttleRate: 25 });
  expect([after.rateLimit, after.throttleRate]).toEqual([25, 25]);
  read = await svix.endpoint.get("acme", "orders");
  after = await svix.endpoint.patch("acme", "orders", { ...read, rateLimit: 30 });
  expect([after.rateLimit, after.throttleRate]).toEqual([30, 30]);
  read = await svix.endpoint.get("acme", "orders");
  after = await svix.endpoint.patch("acme", "orders", { ...read, throttleRate: null });
  expect([after.rateLimit, after.throttleRate]).toEqual([null, null]);

  read = await svix.endpoint.get("acme", "orders");
  after = await svix.endpoint.patch("acme", "orders", { ...read, disabled: true });
  expect(after).toMatchObject({ disabled: true, description: "All orders", channels: ["eu"] });
  read = await svix.endpoint.get("acme", "orders");
  after = await svix.endpoint.update("acme", "orders", { ...read, disabled: false });
  expect(after.disabled).toBe(false);
  expect(await svix.endpoint.get("acme", made.id)).toEqual(after);

  // One made with the URL alone, read from a list and sent back.
  const bare = await svix.endpoint.create("acme", { url: "http://127.0.0.1:9/bare" });
  const listed = (await svix.endpoint.list("acme")).data.find((e) => e.id === bare.id)!;
  expect(
    await svix.endpoint.update("acme", bare.id, { ...listed, url: "http://127.0.0.1:9/bare2" }),
  ).toMatchObject({ url: "http://127.0.0.1:9/bare2", uid: null, rateLimit: null });
  expect(
    await svix.endpoint.patch("acme", bare.id, { ...listed, description: "Bare" }),
  ).toMatchObject({ url: "http://127.0.0.1:9/bare", description: "Bare" });
  await svix.endpoint.delete("acme", bare.id);
});

it("still refuses two limits that both differ from the stored one", async () => {
  const ep = await api.svix.endpoint.create("acme", {
    url: "http://127.0.0.1:9/two",
    rateLimit: 3,
  });
  const read = await api.svix.endpoint.get("acme", ep.id);
  await expect(
    api.svix.endpoint.update("acme", ep.id, { ...read, rateLimit: 4, throttleRate: 5 }),
  ).rejects.toMatchObject({ code: 422 });
  expect((await api.svix.endpoint.get("acme", ep.id)).rateLimit).toBe(3);
  await api.svix.endpoint.delete("acme", ep.id);
});

it("takes its headers and secret back as read", async () => {
  const svix = api.svix;
  const headers = await svix.endpoint.getHeaders("acme", "orders");
  expect(headers.headers).toEqual({ "X-Team": "shop" });
  await svix.endpoint.updateHeaders("acme", "orders", { ...headers });
  await svix.endpoint.patchHeaders("acme", "orders", {
    ...headers,
    headers: { ...headers.headers, "X-Region": "eu" },
  });
  expect((await svix.endpoint.getHeaders("acme", "orders")).headers).toEqual({
    "X-Team": "shop",
    "X-Region": "eu",
  });
  await svix.endpoint.patchHeaders("acme", "orders", { headers: {}, deleteHeaders: ["X-Region"] });
  expect((await svix.endpoint.getHeaders("acme", "orders")).headers).toEqual({ "X-Team": "shop" });

  // The client's older names for the same two calls.
  await svix.endpoint.headersUpdate("acme", "orders", { headers: { "X-Team": "shop" } });
  await svix.endpoint.headersPatch("acme", "orders", { headers: { "X-Team": "shop" } });
  expect((await svix.endpoint.getHeaders("acme", "orders")).headers).toEqual({ "X-Team": "shop" });

  const read = await svix.endpoint.getSecret("acme", "orders");
  expect(read.key).toBe(secret);
  await svix.endpoint.rotateSecret("acme", "orders", { ...read });
  expect((await svix.endpoint.getSecret("acme", "orders")).key).toBe(secret);
  await svix.endpoint.rotateSecret("acme", "orders", {});
  expect((await svix.endpoint.getSecret("acme", "orders")).key).not.toBe(secret);
});

it("reads its stats with and without a window", async () => {
  const svix = api.svix;
  const zero = { success: 0, pending: 0, sending: 0, fail: 0 };
  expect(await svix.endpoint.getStats("acme", "orders")).toMatchObject(zero);
  const until = new Date();
  const since = new Date(until.getTime() - 3_600_000);
  expect(await svix.endpoint.getStats("acme", "orders", { since, until })).toMatchObject(zero);
});

it("lists in either order, paging on to the end, and deletes", async () => {
  const svix = api.svix;
  const ids = [(await svix.endpoint.get("acme", "orders")).id];
  for (const n of [1, 2]) {
    ids.push((await svix.endpoint.create("acme", { url: `http://127.0.0.1:9/more/${n}` })).id);
  }
  const read = async (order?: Ordering) => {
    const seen: string[] = [];
    let iterator: string | null | undefined = undefined;
    for (;;) {
      const page = await svix.endpoint.list("acme", { limit: 1, order, iterator });
      seen.push(...page.data.map((e) => e.id));
      if (page.done) return seen;
      iterator = page.iterator;
    }
  };
  expect(await read(Ordering.Ascending)).toEqual(ids);
  expect(await read(Ordering.Descending)).toEqual([...ids].reverse());
  expect(await read()).toEqual([...ids].reverse());
  for (const id of ids) await svix.endpoint.delete("acme", id);
  expect((await svix.endpoint.list("acme")).data).toEqual([]);
});
