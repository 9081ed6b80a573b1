/**
 * What a Svix client user does with an application: create it with every field the model has,
 * read it, send it back changed (`update(id, { ...read, field })`, `patch` likewise), list it with
 * every option the client has, page on, delete it. Every call must be taken. The read carries the
 * rate limit under both its names (`rateLimit` and `throttleRate`), so changing one of them sent
 * the old value under the other: that was refused (422 on throttleRate) as if the body meant two
 * limits, where the one that differs from the stored limit is the change.
 */
import { Ordering } from "svix";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { PostgresStore } from "../../src/store/postgres/store.js";
import type { SqliteStore } from "../../src/store/sqlite/store.js";
import { startApi, type ApiHarness } from "./harness.js";

describe.each(["sqlite", "postgres"] as const)("on %s", (kind) => {
  let api: ApiHarness<SqliteStore | PostgresStore>;
  beforeAll(async () => {
    api = await startApi({}, undefined, kind);
  });
  afterAll(async () => api.close());

  it("takes every field back as read, with one changed, by PUT and PATCH", async () => {
    const svix = api.svix;
    const made = await svix.application.create({
      name: "Acme",
      uid: "acme",
      metadata: { plan: "pro" },
      rateLimit: 30,
    });
    expect(made).toMatchObject({ uid: "acme", rateLimit: 30, throttleRate: 30 });

    let read = await svix.application.get("acme");
    expect(await svix.application.update("acme", { ...read, name: "Acme Inc" })).toMatchObject({
      name: "Acme Inc",
      uid: "acme",
      metadata: { plan: "pro" },
      rateLimit: 30,
    });

    // The limit changed under one name carries the old one under the other.
    read = await svix.application.get("acme");
    let after = await svix.application.update("acme", { ...read, rateLimit: 40 });
    expect([after.rateLimit, after.throttleRate]).toEqual([40, 40]);
    read = await svix.application.get("acme");
    after = await svix.application.update(read.id, { ...read, throttleRate: 50 });
    expect([after.rateLimit, after.throttleRate, after.uid]).toEqual([50, 50, "acme"]);
    read = await svix.application.get("acme");
    after = await svix.application.patch("acme", { ...read, rateLimit: 60 });
    expect([after.rateLimit, after.throttleRate]).toEqual([60, 60]);
    read = await svix.application.get("acme");
    after = await svix.application.patch("acme", { ...read, throttleRate: null });
    expect([after.rateLimit, after.throttleRate]).toEqual([null, null]);
    read = await svix.application.get("acme");
    after = await svix.application.patch("acme", { ...read, rateLimit: 5 });
    expect([after.rateLimit, after.throttleRate]).toEqual([5, 5]);

    read = await svix.application.get("acme");
    after = await svix.application.patch("acme", { ...read, metadata: { plan: "team" } });
    expect(after).toMatchObject({ name: "Acme Inc", metadata: { plan: "team" }, rateLimit: 5 });
    expect(await svix.application.get(made.id)).toEqual(after);

    // One without a uid or limit, read and sent back.
    const bare = await svix.application.create({ name: "Bare" });
    const bareRead = await svix.application.get(bare.id);
    expect(
      await svix.application.update(bare.id, { ...bareRead, name: "Still bare" }),
    ).toMatchObject({ uid: null, rateLimit: null, name: "Still bare" });
    expect(await svix.application.patch(bare.id, { ...bareRead, name: "Bare" })).toMatchObject({
      uid: null,
      name: "Bare",
    });

    await svix.application.delete("acme");
    await svix.application.delete(bare.id);
    await expect(svix.application.get("acme")).rejects.toMatchObject({ code: 404 });
  });

  it("still refuses two limits that both differ from the stored one", async () => {
    const app = await api.svix.application.create({ name: "Two", rateLimit: 3 });
    const read = await api.svix.application.get(app.id);
    await expect(
      api.svix.application.patch(app.id, { ...read, rateLimit: 4, throttleRate: 5 }),
    ).rejects.toMatchObject({ code: 422 });
    expect((await api.svix.application.get(app.id)).rateLimit).toBe(3);
    await api.svix.application.delete(app.id);
  });

  it("lists with every option the client has and pages on to the end", async () => {
    const svix = api.svix;
    const ids: string[] = [];
    for (const name of ["one", "two", "three"]) {
      ids.push((await svix.application.getOrCreate({ name, uid: `list-${name}` })).id);
    }
    // getOrCreate of one that exists answers it.
    expect((await svix.application.getOrCreate({ name: "one", uid: "list-one" })).id).toBe(ids[0]);
    await svix.endpoint.create(ids[1]!, { url: "http://127.0.0.1:9/hook", disabled: true });
    await svix.endpoint.create(ids[2]!, { url: "http://127.0.0.1:9/hook" });

    const seen: string[] = [];
    let page = await svix.application.list({ limit: 2, order: Ordering.Ascending });
    seen.push(...page.data.map((a) => a.id));
    while (!page.done) {
      page = await svix.application.list({
        limit: 2,
        order: Ordering.Ascending,
        iterator: page.iterator,
      });
      seen.push(...page.data.map((a) => a.id));
    }
    // Only this case's own: another case's application left behind by a failure is not its concern.
    const own = (listed: string[]) => listed.filter((id) => ids.includes(id));
    expect(own(seen)).toEqual(ids);
    const descending = await svix.application.list({ order: Ordering.Descending });
    expect(own(descending.data.map((a) => a.id))).toEqual([...ids].reverse());

    const filtered = await svix.application.list({
      excludeAppsWithNoEndpoints: true,
      excludeAppsWithDisabledEndpoints: true,
      excludeAppsWithSvixPlayEndpoints: true,
    });
    expect(own(filtered.data.map((a) => a.id))).toEqual([ids[2]]);
    for (const id of ids) await svix.application.delete(id);
  });
});
