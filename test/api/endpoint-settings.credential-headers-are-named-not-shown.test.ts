/**
 * Reading an endpoint's custom headers leaves out the values of credential headers
 * (`Authorization` and the like) and lists their names under `sensitive`, as Svix does: they are
 * the receiver's own credentials, and anyone who may read the endpoint (a customer's portal
 * session too) was shown them. They are still sent with every request.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startHookline, type TestHookline } from "../support/hookline.js";

let h: TestHookline;
let appId = "";
beforeAll(async () => {
  h = await startHookline();
  appId = (await h.svix.application.create({ name: "credential headers" })).id;
});
afterAll(async () => h.stop());

const headers = {
  Authorization: "Bearer receiver-secret",
  "proxy-authorization": "Basic abc",
  "X-Auth-Token": "t0k3n",
  "WWW-Authenticate": "Basic",
  "proxy-authenticate": "Basic",
  "X-Tenant": "acme",
};

describe("credential headers are named, not shown", () => {
  it("on an application's endpoint", async () => {
    const ep = await h.svix.endpoint.create(appId, { url: "http://127.0.0.1:9/h", headers });
    const out = await h.svix.endpoint.getHeaders(appId, ep.id);
    expect(out.headers).toEqual({ "X-Tenant": "acme" });
    expect([...out.sensitive].sort()).toEqual(
      [
        "Authorization",
        "proxy-authorization",
        "X-Auth-Token",
        "WWW-Authenticate",
        "proxy-authenticate",
      ].sort(),
    );
    // Still kept, and still sent: a patch of another header leaves them be.
    await h.svix.endpoint.patchHeaders(appId, ep.id, { headers: { "X-Tenant": "beta" } });
    expect((await h.svix.endpoint.getHeaders(appId, ep.id)).sensitive).toHaveLength(5);
  });

  it("on an operational webhook endpoint", async () => {
    const ep = await h.svix.operationalWebhookEndpoint.create({ url: "http://127.0.0.1:9/ops" });
    await h.svix.operationalWebhookEndpoint.updateHeaders(ep.id, {
      headers: { authorization: "Bearer ops", "x-oncall": "team-a" },
    });
    expect(await h.svix.operationalWebhookEndpoint.getHeaders(ep.id)).toEqual({
      headers: { "x-oncall": "team-a" },
      sensitive: ["authorization"],
    });
  });
});
