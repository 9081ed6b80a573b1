/**
 * What a Svix client user does with an operational webhook endpoint: create it with every field
 * the model has, read it, send it back changed (`update(id, { ...read, field })`), the same with
 * its headers and secret, list and page on, delete it. Every call must be taken. The read carries
 * the rate limit under both its names, so changing one sent the old value under the other: that
 * was refused (422 on throttleRate) where the one that differs from the stored limit is the change.
 */
import { Ordering } from "svix";
import { afterAll, beforeAll, expect, it } from "vitest";
import { startHookline, type TestHookline } from "../support/hookline.js";

let h: TestHookline;
beforeAll(async () => {
  h = await startHookline();
});
afterAll(async () => h.stop());

const secret = `whsec_${Buffer.alloc(32, 9).toString("base64")}`;

it("takes every field back as read, with one changed", async () => {
  const ops = h.svix.operationalWebhookEndpoint;
  const made = await ops.create({
    url: "http://127.0.0.1:9/pager",
    uid: "pager",
    description: "Pager",
    disabled: false,
    filterTypes: ["endpoint.disabled", "message.attempt.exhausted"],
    metadata: { team: "sre" },
    rateLimit: 5,
    secret,
  });
  expect(made).toMatchObject({ uid: "pager", rateLimit: 5, throttleRate: 5 });

  let read = await ops.get("pager");
  let after = await ops.update("pager", { ...read, description: "On call" });
  expect(after).toMatchObject({
    id: made.id,
    uid: "pager",
    description: "On call",
    filterTypes: ["endpoint.disabled", "message.attempt.exhausted"],
    metadata: { team: "sre" },
    rateLimit: 5,
  });
  read = await ops.get("pager");
  after = await ops.update("pager", { ...read, rateLimit: 8 });
  expect([after.rateLimit, after.throttleRate]).toEqual([8, 8]);
  read = await ops.get("pager");
  after = await ops.update(made.id, { ...read, throttleRate: null });
  expect([after.rateLimit, after.throttleRate, after.uid]).toEqual([null, null, "pager"]);
  read = await ops.get("pager");
  after = await ops.update("pager", { ...read, disabled: true });
  expect(after.disabled).toBe(true);
  expect(await ops.get(made.id)).toEqual(after);

  const bare = await ops.create({ url: "http://127.0.0.1:9/bare" });
  const listed = (await ops.list()).data.find((e) => e.id === bare.id)!;
  expect(await ops.update(bare.id, { ...listed, description: "Bare" })).toMatchObject({
    uid: null,
    description: "Bare",
    rateLimit: null,
  });
});

it("takes its headers and secret back as read", async () => {
  const ops = h.svix.operationalWebhookEndpoint;
  await ops.updateHeaders("pager", { headers: { "X-Team": "sre" } });
  const headers = await ops.getHeaders("pager");
  await ops.updateHeaders("pager", { ...headers });
  expect((await ops.getHeaders("pager")).headers).toEqual({ "X-Team": "sre" });

  const read = await ops.getSecret("pager");
  expect(read.key).toBe(secret);
  await ops.rotateSecret("pager", { ...read });
  expect((await ops.getSecret("pager")).key).toBe(secret);
  await ops.rotateSecret("pager", {});
  expect((await ops.getSecret("pager")).key).not.toBe(secret);
});

it("lists in either order, paging on to the end, and deletes", async () => {
  const ops = h.svix.operationalWebhookEndpoint;
  const ids = (await ops.list({ order: Ordering.Ascending })).data.map((e) => e.id);
  expect(ids).toHaveLength(2);
  const read = async (order: Ordering) => {
    const seen: string[] = [];
    let iterator: string | null | undefined = undefined;
    for (;;) {
      const page = await ops.list({ limit: 1, order, iterator });
      seen.push(...page.data.map((e) => e.id));
      if (page.done) return seen;
      iterator = page.iterator;
    }
  };
  expect(await read(Ordering.Ascending)).toEqual(ids);
  expect(await read(Ordering.Descending)).toEqual([...ids].reverse());
  for (const id of ids) await ops.delete(id);
  expect((await ops.list()).data).toEqual([]);
});
