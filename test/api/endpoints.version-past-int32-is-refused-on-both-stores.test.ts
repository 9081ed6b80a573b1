/**
 * An endpoint's `version` is a 32-bit integer, as in Svix's EndpointIn, and PostgreSQL's column:
 * a larger one is answered 422 naming the field on create, PUT and PATCH, on PostgreSQL as on
 * SQLite (which took it), never a 500, and writes nothing. The largest one is kept.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startHooklineOn, type TestHookline } from "../support/hookline.js";

const INT32_MAX = 2 ** 31 - 1;

describe.each(["sqlite", "postgres"] as const)("on %s", (kind) => {
  let t: TestHookline;
  let appId = "";
  beforeAll(async () => {
    t = await startHooklineOn(kind);
    appId = (await t.svix.application.create({ name: "versions" })).id;
  });
  afterAll(() => t.stop());

  const send = async (method: string, path: string, body: unknown) => {
    const res = await fetch(`${t.url}${path}`, {
      method,
      headers: { authorization: `Bearer ${t.token}`, "content-type": "application/json" },
      body: JSON.stringify(body),
    });
    return { status: res.status, body: (await res.json()) as Record<string, unknown> };
  };
  const refused = async (method: string, path: string, body: unknown) => {
    const res = await send(method, path, body);
    expect(res.status, `${method} ${path}`).toBe(422);
    const detail = res.body.detail as { loc: unknown[] }[];
    expect(detail.map((p) => p.loc)).toContainEqual(["body", "version"]);
  };

  it("refuses a version past 2^31 - 1 and keeps the largest one", async () => {
    const url = "https://example.com/hook";
    const base = `/api/v1/app/${appId}/endpoint`;
    await refused("POST", base, { url, version: INT32_MAX + 1 });
    expect((await t.svix.endpoint.list(appId)).data).toEqual([]);

    const made = await send("POST", base, { url, version: INT32_MAX });
    expect(made.status).toBe(201);
    expect(made.body.version).toBe(INT32_MAX);
    const id = String(made.body.id);
    await refused("PUT", `${base}/${id}`, { url, version: 2 ** 40 });
    await refused("PATCH", `${base}/${id}`, { version: INT32_MAX + 1 });
    expect((await t.svix.endpoint.get(appId, id)).version).toBe(INT32_MAX);
  });
});
