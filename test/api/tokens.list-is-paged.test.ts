/**
 * GET /api/v1/tokens pages as every other list does (limit, iterator, done), so an admin with many
 * portal links gets a page, not every token ever made in one answer.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startApi, type ApiHarness } from "./harness.js";

interface TokenPage {
  data: { id: string; name: string }[];
  iterator: string | null;
  done: boolean;
}

let api: ApiHarness;
beforeAll(async () => {
  api = await startApi();
});
afterAll(async () => api.close());

const list = async (query: string): Promise<TokenPage> => {
  const res = await api.call("GET", `/api/v1/tokens${query}`);
  expect(res.status).toBe(200);
  return (await res.json()) as TokenPage;
};

describe("listing API tokens", () => {
  it("answers a page at a time, oldest first, and the next page from its iterator", async () => {
    const names = ["a", "b", "c"];
    for (const name of names) {
      expect((await api.call("POST", "/api/v1/tokens", { name, scope: "admin" })).status).toBe(201);
    }
    // The bootstrap admin token, registered at start, is the oldest.
    const first = await list("?limit=2");
    expect(first.data.map((t) => t.name)).toEqual(["admin", "a"]);
    expect(first.done).toBe(false);
    const rest = await list(`?limit=2&iterator=${first.iterator}`);
    expect(rest.data.map((t) => t.name)).toEqual(["b", "c"]);
    expect(rest.done).toBe(true);
    expect((await list("?order=descending&limit=1")).data.map((t) => t.name)).toEqual(["c"]);
    // Without a limit, a page of up to 50, as the other lists.
    expect((await list("")).data.map((t) => t.name)).toEqual(["admin", ...names]);
  });

  it("refuses a limit past the most a page holds, naming it", async () => {
    const res = await api.call("GET", "/api/v1/tokens?limit=1000");
    expect(res.status).toBe(422);
    const body = (await res.json()) as { detail: { loc: string[] }[] };
    expect(body.detail.map((d) => d.loc.join("."))).toEqual(["query.limit"]);
  });
});
