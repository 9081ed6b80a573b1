/**
 * Two PUTs that both find no application (or endpoint) with the path's uid both go to create it;
 * the store takes one. The other must not answer 500 nor 409: it updates the record the first made
 * and answers 200, as it would have had it come a moment later. On both stores.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import type { PostgresStore } from "../../src/store/postgres/store.js";
import type { SqliteStore } from "../../src/store/sqlite/store.js";
import { startApi, type ApiHarness } from "./harness.js";

describe.each(["sqlite", "postgres"] as const)("on %s", (kind) => {
  let api: ApiHarness<SqliteStore | PostgresStore>;
  beforeAll(async () => {
    api = await startApi({}, undefined, kind);
    await api.svix.application.create({ name: "Holder", uid: "holder" });
  });
  afterAll(async () => api?.close());

  const put = async (path: string, body: unknown) => {
    const res = await api.call("PUT", path, body);
    return { status: res.status, body: (await res.json()) as { id: string; uid: string } };
  };

  /** Lets `meanwhile` run to its end just before the route's first create reaches the store. */
  function beforeFirstCreate(
    what: "createApplication" | "createEndpoint",
    meanwhile: () => Promise<unknown>,
  ) {
    const create = api.store[what].bind(api.store) as (row: unknown) => Promise<unknown>;
    let done = false;
    return vi.spyOn(api.store, what).mockImplementation((async (row: unknown) => {
      if (!done) {
        done = true;
        await meanwhile();
      }
      return create(row);
    }) as never);
  }

  it("an application PUT that loses the race updates the winner's (200)", async () => {
    let winner: Awaited<ReturnType<typeof put>> | null = null;
    const spy = beforeFirstCreate("createApplication", async () => {
      winner = await put("/api/v1/app/raced-app", { name: "first" });
    });
    const loser = await put("/api/v1/app/raced-app", { name: "second" });
    spy.mockRestore();
    expect(winner!.status).toBe(201);
    expect(loser.status).toBe(200);
    expect(loser.body).toMatchObject({ id: winner!.body.id, uid: "raced-app", name: "second" });
  });

  it("an endpoint PUT that loses the race updates the winner's (200)", async () => {
    const path = "/api/v1/app/holder/endpoint/raced-ep";
    let winner: Awaited<ReturnType<typeof put>> | null = null;
    const spy = beforeFirstCreate("createEndpoint", async () => {
      winner = await put(path, { url: "https://example.com/first" });
    });
    const loser = await put(path, { url: "https://example.com/second" });
    spy.mockRestore();
    expect(winner!.status).toBe(201);
    expect(loser.status).toBe(200);
    expect(loser.body).toMatchObject({
      id: winner!.body.id,
      uid: "raced-ep",
      url: "https://example.com/second",
    });
    const all = await api.svix.endpoint.list("holder", { limit: 250 });
    expect(all.data.filter((e) => e.uid === "raced-ep")).toHaveLength(1);
  });

  it("four PUTs sent at once make one application: one 201, the others 200", async () => {
    // Four: each can be overtaken by at most three other writes, fewer than a change's five tries.
    const answers = await Promise.all(
      [1, 2, 3, 4].map((n) => put("/api/v1/app/at-once", { name: `at once ${n}` })),
    );
    expect(answers.map((a) => a.status).sort()).toEqual([200, 200, 200, 201]);
    expect(new Set(answers.map((a) => a.body.id)).size).toBe(1);
  });
});
