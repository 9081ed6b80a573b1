/**
 * The dead-letter filters take an endpoint by its id, or by its uid with its application: uids are
 * an application's own. An endpoint uid given alone (`hookline dlq list --endpoint pager`) was
 * answered 404 "endpoint pager not found", as if there were none, although there was. It is
 * refused, 422 naming the field and saying to give the application too, on the list, the
 * overflow list and a bulk replay, which starts no job; with the application it is taken.
 */
import { afterAll, beforeAll, expect, it } from "vitest";
import { startHookline, type TestHookline } from "../support/hookline.js";

let h: TestHookline;
let appId = "";
beforeAll(async () => {
  h = await startHookline();
  appId = (await h.svix.application.create({ name: "acme", uid: "acme" })).id;
  await h.svix.endpoint.create(appId, { url: "http://127.0.0.1:9/hook", uid: "pager" });
});
afterAll(async () => h.stop());

interface Refusal {
  detail: { loc: string[]; msg: string }[];
}

it("refuses an endpoint uid without its application, naming the field", async () => {
  for (const [method, path, body, loc] of [
    ["GET", "/api/v1/dlq?endpoint_id=pager", undefined, ["query", "endpoint_id"]],
    ["GET", "/api/v1/dlq/overflow?endpoint_id=pager", undefined, ["query", "endpoint_id"]],
    ["POST", "/api/v1/dlq/replay", { endpointId: "pager" }, ["body", "endpointId"]],
  ] as const) {
    const r = await h.api<Refusal>(method, path, body);
    expect(r.status, path).toBe(422);
    expect(r.body.detail).toEqual([
      expect.objectContaining({ loc, msg: expect.stringMatching(/give the application too/) }),
    ]);
  }
  const jobs = await h.api<{ data: unknown[] }>("GET", "/api/v1/dlq/replay");
  expect(jobs.body.data).toEqual([]);
});

it("takes the uid with its application, and an endpoint id alone", async () => {
  const list = await h.api("GET", "/api/v1/dlq?app_id=acme&endpoint_id=pager");
  expect(list.status).toBe(200);
  const overflow = await h.api("GET", "/api/v1/dlq/overflow?app_id=acme&endpoint_id=pager");
  expect(overflow.status).toBe(200);
  const missing = await h.api("GET", "/api/v1/dlq?endpoint_id=ep_01KBBBBBBBBBBBBBBBBBBBBBBB");
  expect(missing.status).toBe(404);
});
