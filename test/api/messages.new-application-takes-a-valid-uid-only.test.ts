/**
 * A message sent with `application` to a path naming no application creates it with the path's
 * app_id as its uid: that uid must be one POST /api/v1/app would accept, or the request is refused
 * (422 naming path.app_id) and nothing is created.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startApi, type ApiHarness } from "./harness.js";

let api: ApiHarness;
beforeAll(async () => {
  api = await startApi();
});
afterAll(async () => api.close());

const applications = async (): Promise<{ uid: string | null }[]> => {
  const res = await api.call("GET", "/api/v1/app");
  return ((await res.json()) as { data: { uid: string | null }[] }).data;
};

describe("creating an application on the fly with a message", () => {
  it("refuses a path app_id that is not a valid uid, naming path.app_id, and creates nothing", async () => {
    for (const appId of ["has%20space", "slash%2Fin", "%C3%A9t%C3%A9"]) {
      const res = await api.call("POST", `/api/v1/app/${appId}/msg`, {
        eventType: "user.created",
        payload: {},
        application: { name: "New" },
      });
      expect(res.status, appId).toBe(422);
      const body = (await res.json()) as { code: string; detail: { loc: unknown[] }[] };
      expect(body.code).toBe("validation");
      expect(body.detail.map((p) => p.loc)).toEqual([["path", "app_id"]]);
    }
    expect(await applications()).toEqual([]);
  });

  it("names both problems when the body's uid does not match an invalid path either", async () => {
    const res = await api.call("POST", "/api/v1/app/has%20space/msg", {
      eventType: "user.created",
      payload: {},
      application: { name: "New", uid: "other" },
    });
    expect(res.status).toBe(422);
    const body = (await res.json()) as { detail: { loc: unknown[] }[] };
    expect(body.detail.map((p) => p.loc)).toEqual([
      ["path", "app_id"],
      ["body", "application", "uid"],
    ]);
    expect(await applications()).toEqual([]);
  });

  it("creates it with a valid uid as before", async () => {
    const res = await api.call("POST", "/api/v1/app/new-customer.1/msg", {
      eventType: "user.created",
      payload: {},
      application: { name: "New" },
    });
    expect(res.status).toBe(202);
    expect((await applications()).map((a) => a.uid)).toEqual(["new-customer.1"]);
  });
});
