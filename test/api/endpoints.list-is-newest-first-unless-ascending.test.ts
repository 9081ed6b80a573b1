/**
 * An application's endpoints are listed newest first, as Svix lists them, when no `order` is
 * asked; `order=ascending` lists them oldest first. Either way, following `iterator` until `done`
 * gives every endpoint once, in that order, on SQLite as on PostgreSQL. (Applications keep
 * listing oldest first, as in Svix.)
 */
import type { ListResponseEndpointOut, Ordering } from "svix";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startHooklineOn, type TestHookline } from "../support/hookline.js";

describe.each(["sqlite", "postgres"] as const)("on %s", (kind) => {
  let t: TestHookline;
  let appId = "";
  /** The endpoints' ids, in the order they were created. */
  const created: string[] = [];
  beforeAll(async () => {
    t = await startHooklineOn(kind);
    appId = (await t.svix.application.create({ name: "listed" })).id;
    for (let i = 1; i <= 5; i++) {
      created.push((await t.svix.endpoint.create(appId, { url: `https://example.com/${i}` })).id);
    }
  });
  afterAll(() => t.stop());

  /** Every page of the list, two endpoints at a time, through the Svix client. */
  const walk = async (order?: Ordering) => {
    const pages: ListResponseEndpointOut[] = [];
    let iterator: string | null | undefined;
    do {
      const page = await t.svix.endpoint.list(appId, { limit: 2, iterator, order });
      pages.push(page);
      iterator = page.iterator;
      if (pages.length > 10) throw new Error("the list never reported done");
    } while (!pages[pages.length - 1]!.done);
    return pages;
  };

  it("lists the newest endpoint first when no order is asked, every one once across pages", async () => {
    const first = await t.svix.endpoint.list(appId);
    expect(first.data.map((e) => e.id)).toEqual([...created].reverse());
    expect(first.done).toBe(true);

    const pages = await walk();
    expect(pages.map((p) => p.data.map((e) => e.id))).toEqual([
      [created[4], created[3]],
      [created[2], created[1]],
      [created[0]],
    ]);
    expect(pages.map((p) => p.done)).toEqual([false, false, true]);
    expect(pages.map((p) => p.prevIterator ?? null)).toEqual([null, null, null]);
  });

  it("lists the oldest endpoint first when order=ascending is asked", async () => {
    const pages = await walk("ascending" as Ordering);
    expect(pages.flatMap((p) => p.data.map((e) => e.id))).toEqual(created);
    expect(pages.map((p) => p.done)).toEqual([false, false, true]);
  });

  it("lists newest first when order=descending is asked, as with no order", async () => {
    const pages = await walk("descending" as Ordering);
    expect(pages.flatMap((p) => p.data.map((e) => e.id))).toEqual([...created].reverse());
  });

  it("keeps listing applications oldest first", async () => {
    const later = await t.svix.application.create({ name: "later" });
    const apps = await t.svix.application.list();
    expect(apps.data.map((a) => a.id)).toEqual([appId, later.id]);
  });
});
