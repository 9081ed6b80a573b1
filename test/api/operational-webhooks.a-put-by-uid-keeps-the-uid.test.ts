/**
 * `operationalWebhookEndpoint.update` by uid, with a body that names no uid (the client's usual
 * call: a new URL), kept the settings but cleared the uid it was found by: the next call by that
 * uid answered 404, and registering the endpoint again under the same uid made a second one, so
 * hookline's events went out twice. It keeps the path's uid now, as an application's endpoint
 * does; one named by its id, or a body with a uid of its own, still sets what the body says.
 */
import { afterAll, beforeAll, expect, it } from "vitest";
import { startHookline, type TestHookline } from "../support/hookline.js";

let h: TestHookline;
beforeAll(async () => {
  h = await startHookline();
});
afterAll(async () => h.stop());

it("keeps the uid it was found by, so the next call by it finds the same endpoint", async () => {
  const ops = h.svix.operationalWebhookEndpoint;
  const ep = await ops.create({ url: "http://127.0.0.1:9/ops", uid: "pager" });

  const updated = await ops.update("pager", { url: "http://127.0.0.1:9/ops-2" });
  expect(updated).toMatchObject({ id: ep.id, uid: "pager", url: "http://127.0.0.1:9/ops-2" });

  await ops.updateHeaders("pager", { headers: { "X-Team": "sre" } });
  expect((await ops.get("pager")).id).toBe(ep.id);
  expect((await ops.getHeaders("pager")).headers).toEqual({ "X-Team": "sre" });

  // The uid is still taken: registering it again is refused, not a second endpoint.
  const again = await h.api("POST", "/api/v1/operational-webhook/endpoint", {
    url: "http://127.0.0.1:9/ops",
    uid: "pager",
  });
  expect(again.status).toBe(409);
  expect((await ops.list()).data.map((e) => e.id)).toEqual([ep.id]);
});

it("sets the body's uid, and clears it when the path is the endpoint's id", async () => {
  const ops = h.svix.operationalWebhookEndpoint;
  const ep = await ops.create({ url: "http://127.0.0.1:9/renamed", uid: "old-name" });

  expect((await ops.update("old-name", { url: ep.url, uid: "new-name" })).uid).toBe("new-name");
  expect((await ops.get("new-name")).id).toBe(ep.id);

  expect((await ops.update(ep.id, { url: ep.url })).uid).toBeNull();
  const gone = await h.api("GET", "/api/v1/operational-webhook/endpoint/new-name");
  expect(gone.status).toBe(404);
});
