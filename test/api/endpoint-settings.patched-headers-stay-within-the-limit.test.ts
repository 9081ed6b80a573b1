/**
 * An endpoint sends at most 50 custom headers, however they were set: a PATCH that would take the
 * endpoint past 50 is refused (422 on body.headers) and changes nothing.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startApi, type ApiHarness } from "./harness.js";

let api: ApiHarness;
let path = "";
beforeAll(async () => {
  api = await startApi();
  const app = await api.svix.application.create({ name: "A" });
  const ep = await api.svix.endpoint.create(app.id, { url: "https://example.com/a" });
  path = `/api/v1/app/${app.id}/endpoint/${ep.id}/headers`;
});
afterAll(async () => api.close());

const named = (prefix: string, n: number): Record<string, string> =>
  Object.fromEntries(Array.from({ length: n }, (_, i) => [`x-${prefix}-${i}`, "v"]));

const stored = async (): Promise<Record<string, string>> => {
  const res = await api.call("GET", path);
  expect(res.status).toBe(200);
  return ((await res.json()) as { headers: Record<string, string> }).headers;
};

describe("patching an endpoint's custom headers", () => {
  it("refuses a PATCH that would make more than 50, naming body.headers, and keeps the old ones", async () => {
    const first = named("a", 50);
    expect((await api.call("PUT", path, { headers: first })).status).toBe(204);

    for (const headers of [named("b", 50), named("b", 1)]) {
      const res = await api.call("PATCH", path, { headers });
      expect(res.status).toBe(422);
      const body = (await res.json()) as { detail: { loc: unknown[]; type: string }[] };
      expect(body.detail.map((p) => p.loc)).toEqual([["body", "headers"]]);
    }
    expect(await stored()).toEqual(first);
  });

  it("still allows replacing, removing and adding within 50", async () => {
    const res = await api.call("PATCH", path, {
      headers: { "x-a-0": "new", "x-a-1": null, "x-c-0": "added" },
      deleteHeaders: ["x-a-2"],
    });
    expect(res.status).toBe(204);
    const headers = await stored();
    expect(Object.keys(headers)).toHaveLength(49);
    expect(headers).toMatchObject({ "x-a-0": "new", "x-c-0": "added" });
    expect(headers).not.toHaveProperty("x-a-1");
    // Renaming a header's spelling does not count it twice.
    expect(
      (await api.call("PATCH", path, { headers: { "X-C-0": "again", "x-d": "1" } })).status,
    ).toBe(204);
    expect(Object.keys(await stored())).toHaveLength(50);
  });
});
