import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ApiException, Ordering } from "svix";
import { startApi, type ApiHarness } from "./harness.js";

let api: ApiHarness;
beforeAll(async () => {
  api = await startApi();
});
afterAll(async () => api.close());

describe("applications through the official Svix client", () => {
  it("creates, reads by id and by uid, updates, patches and deletes an application", async () => {
    const created = await api.svix.application.create({
      name: "Acme",
      uid: "acme",
      metadata: { plan: "pro" },
    });
    expect(created.id).toMatch(/^app_/);
    expect(created).toMatchObject({ name: "Acme", uid: "acme", metadata: { plan: "pro" } });
    expect(created.createdAt).toBeInstanceOf(Date);
    expect(Number.isNaN(created.createdAt.getTime())).toBe(false);

    expect((await api.svix.application.get(created.id)).name).toBe("Acme");
    expect((await api.svix.application.get("acme")).id).toBe(created.id);

    const updated = await api.svix.application.update("acme", { name: "Acme Inc", uid: "acme" });
    expect(updated).toMatchObject({ id: created.id, name: "Acme Inc", metadata: {} });

    const patched = await api.svix.application.patch(created.id, { rateLimit: 10 });
    expect(patched).toMatchObject({ name: "Acme Inc", uid: "acme", rateLimit: 10 });

    await api.svix.application.delete("acme");
    await expect(api.svix.application.get(created.id)).rejects.toMatchObject({ code: 404 });
    expect(api.engine.invalidatedApplications).toContain(created.id);
  });

  it("getOrCreate returns the existing application with the same uid (200) instead of a copy", async () => {
    const first = await api.svix.application.getOrCreate({ name: "Once", uid: "once" });
    const second = await api.svix.application.getOrCreate({ name: "Twice", uid: "once" });
    expect(second.id).toBe(first.id);
    expect(second.name).toBe("Once");
    const raw = await api.call("POST", "/api/v1/app?get_if_exists=true", {
      name: "x",
      uid: "once",
    });
    expect(raw.status).toBe(200);
  });

  it("refuses a second application with the same uid (409)", async () => {
    await api.svix.application.create({ name: "A", uid: "dup-uid" });
    const err = await api.svix.application
      .create({ name: "B", uid: "dup-uid" })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiException);
    expect((err as ApiException<{ code: string }>).code).toBe(409);
    expect((err as ApiException<{ code: string }>).body.code).toBe("conflict");
  });

  it("refuses '.' and '..' as uids and event type names, which no URL path can name (422)", async () => {
    for (const uid of [".", ".."]) {
      const app = await api.call("POST", "/api/v1/app", { name: "dots", uid });
      expect(app.status, uid).toBe(422);
      expect(await app.json()).toMatchObject({ detail: [{ loc: ["body", "uid"] }] });
      const type = await api.call("POST", "/api/v1/event-type", { name: uid, description: "x" });
      expect(type.status, uid).toBe(422);
    }
    const dotted = await api.call("POST", "/api/v1/app", { name: "dots", uid: "a.b" });
    expect(dotted.status).toBe(201);
  });

  it("pages through applications with iterator and done, in both orders", async () => {
    const ids: string[] = [];
    for (let i = 0; i < 7; i++) {
      ids.push((await api.svix.application.create({ name: `page-${i}`, uid: `page-${i}` })).id);
    }
    const seen: string[] = [];
    let iterator: string | null = null;
    let pages = 0;
    for (;;) {
      const page = await api.svix.application.list({ limit: 3, iterator });
      seen.push(...page.data.map((a) => a.id));
      pages++;
      if (page.done) break;
      iterator = page.iterator;
    }
    expect(pages).toBeGreaterThanOrEqual(3);
    expect(seen.filter((id) => ids.includes(id))).toEqual(ids);
    expect([...seen].sort()).toEqual(seen);

    const newest = await api.svix.application.list({ limit: 2, order: Ordering.Descending });
    expect(newest.data.map((a) => a.id)).toEqual([ids[6], ids[5]]);
    expect(newest.done).toBe(false);
  });
});
