/**
 * Applications and endpoints are found by id or uid, the id first. A uid shaped as an id of the
 * same kind (`app_` or `ep_` and 26 characters) could be another record's id: the record holding
 * it could never be reached by it, and a DELETE by it would remove the other. Such a uid is
 * refused, 422 naming `uid`, wherever one is set (POST, PUT, PATCH, and the path's app_id that a
 * message's `application` creates), and nothing is written. A uid merely starting so is kept.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { newId } from "../../src/ids.js";
import { startHookline, type TestHookline } from "../support/hookline.js";

let t: TestHookline;
let appId = "";
let epId = "";
beforeAll(async () => {
  t = await startHookline();
  appId = (await t.svix.application.create({ name: "first", uid: "first" })).id;
  epId = (await t.svix.endpoint.create(appId, { url: "https://example.com/a" })).id;
});
afterAll(() => t.stop());

type Refusal = { detail: { loc: unknown[]; msg: string }[] };
const expectRefused = (
  res: { status: number; body: unknown },
  loc: (string | number)[],
  what: string,
) => {
  expect(res.status, what).toBe(422);
  expect(
    (res.body as Refusal).detail.map((p) => p.loc),
    what,
  ).toEqual([loc]);
};

describe("an application uid shaped as an application id", () => {
  it("is refused on create, PUT, PATCH and a message's new application, and nothing changes", async () => {
    const before = (await t.svix.application.list({ limit: 250 })).data.length;
    expectRefused(
      await t.api("POST", "/api/v1/app", { name: "x", uid: appId }),
      ["body", "uid"],
      "POST",
    );
    const fresh = newId("app");
    expectRefused(
      await t.api("POST", "/api/v1/app", { name: "x", uid: fresh }),
      ["body", "uid"],
      "POST new",
    );
    expectRefused(
      await t.api("PUT", "/api/v1/app/second", { name: "x", uid: appId }),
      ["body", "uid"],
      "PUT",
    );
    expectRefused(
      await t.api("PATCH", `/api/v1/app/${appId}`, { uid: newId("app") }),
      ["body", "uid"],
      "PATCH",
    );
    expectRefused(
      await t.api("POST", `/api/v1/app/${fresh}/msg`, {
        eventType: "a.b",
        payload: {},
        application: { name: "made by a message" },
      }),
      ["path", "app_id"],
      "message",
    );
    expect((await t.svix.application.list({ limit: 250 })).data.length).toBe(before);
    expect(await t.svix.application.get(appId)).toMatchObject({ id: appId, uid: "first" });
  });

  it("is taken when it only starts like one, or is shaped as an id of another kind", async () => {
    const similar = await t.api("POST", "/api/v1/app", { name: "x", uid: "app_customer-42" });
    expect(similar.status).toBe(201);
    const other = await t.api("POST", "/api/v1/app", { name: "x", uid: newId("ep") });
    expect(other.status).toBe(201);
  });
});

describe("an endpoint uid shaped as an endpoint id", () => {
  it("is refused on create, PUT and PATCH, and the endpoint keeps its own", async () => {
    const base = `/api/v1/app/${appId}/endpoint`;
    const url = "https://example.com/b";
    expectRefused(await t.api("POST", base, { url, uid: epId }), ["body", "uid"], "POST");
    expectRefused(await t.api("PUT", `${base}/second`, { url, uid: epId }), ["body", "uid"], "PUT");
    expectRefused(
      await t.api("PATCH", `${base}/${epId}`, { uid: newId("ep") }),
      ["body", "uid"],
      "PATCH",
    );
    const eps = (await t.svix.endpoint.list(appId)).data;
    expect(eps.map((e) => e.id)).toEqual([epId]);
    expect(eps[0]!.uid).toBeFalsy();

    const similar = await t.api("POST", base, { url, uid: "ep_billing" });
    expect(similar.status).toBe(201);
  });
});
