/**
 * `hookline-operational` and `hookline-drill` are the uids of hookline's own applications: an
 * application of the caller's created or renamed to one (by POST, PUT, PATCH, a message or a
 * portal link that creates its application) is refused with 422 naming the field, and nothing is
 * written. Taken, the uid would make hookline refuse to run its operational webhooks or drill.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DRILL_APP_UID, OPERATIONAL_APP_UID } from "../../src/observability/system-apps.js";
import { startApi, type ApiHarness } from "./harness.js";

let api: ApiHarness;
beforeAll(async () => {
  api = await startApi();
  await api.svix.application.create({ name: "Customer", uid: "customer" });
});
afterAll(async () => api.close());

type Problems = { code: string; detail: { loc: string[]; msg: string; type: string }[] };

const refused = async (method: string, path: string, body: unknown, loc: string[]) => {
  const res = await api.call(method, path, body);
  expect(res.status, `${method} ${path}`).toBe(422);
  const answer = (await res.json()) as Problems;
  expect(answer.code).toBe("validation");
  expect(answer.detail).toEqual([
    expect.objectContaining({
      loc,
      type: "reserved_uid",
      msg: expect.stringContaining("reserved"),
    }),
  ]);
};

const uids = async () => {
  const res = await api.call("GET", "/api/v1/app");
  return ((await res.json()) as { data: { uid: string }[] }).data.map((a) => a.uid);
};

describe.each([OPERATIONAL_APP_UID, DRILL_APP_UID])("the reserved uid %s", (uid) => {
  it("is refused when creating an application, in every way one is created", async () => {
    await refused("POST", "/api/v1/app", { name: "x", uid }, ["body", "uid"]);
    await refused("POST", "/api/v1/app?get_if_exists=true", { name: "x", uid }, ["body", "uid"]);
    await refused("PUT", `/api/v1/app/${uid}`, { name: "x" }, ["path", "app_id"]);
    await refused("PUT", "/api/v1/app/someone-new", { name: "x", uid }, ["body", "uid"]);
    await refused(
      "POST",
      `/api/v1/app/${uid}/msg`,
      { eventType: "a.b", payload: {}, application: { name: "x" } },
      ["path", "app_id"],
    );
    await refused("POST", `/api/v1/auth/app-portal-access/${uid}`, { application: { name: "x" } }, [
      "path",
      "app_id",
    ]);
    expect(await uids()).toEqual(["customer"]);
  });

  it("is refused when renaming an application to it", async () => {
    await refused("PATCH", "/api/v1/app/customer", { uid }, ["body", "uid"]);
    await refused("PUT", "/api/v1/app/customer", { name: "x", uid }, ["body", "uid"]);
    const app = await api.svix.application.get("customer");
    expect([app.uid, app.name]).toEqual(["customer", "Customer"]);
  });
});
