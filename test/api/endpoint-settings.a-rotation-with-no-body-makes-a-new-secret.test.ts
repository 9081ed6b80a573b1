/**
 * Every field of Svix's EndpointSecretRotateIn is optional, so a rotation may come with no body
 * at all (a raw call, or a client that sends no `{}`): it is taken as `{}`, a new secret and the
 * default grace, not answered 422 "body field required". An empty body with a JSON content type
 * is the same; a body that is there is still checked.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startHookline, type TestHookline } from "../support/hookline.js";

let h: TestHookline;
beforeAll(async () => {
  h = await startHookline();
});
afterAll(async () => h.stop());

const rotate = (path: string, init: { body?: string; type?: string } = {}) =>
  fetch(`${h.url}${path}/secret/rotate`, {
    method: "POST",
    headers: {
      authorization: `Bearer ${h.token}`,
      ...(init.type ? { "content-type": init.type } : {}),
    },
    body: init.body,
  });

describe("a secret rotation without a body", () => {
  it("rotates an endpoint's secret, the old one kept in grace", async () => {
    const app = await h.svix.application.create({ name: "No body" });
    const ep = await h.svix.endpoint.create(app.id, { url: "https://example.com/no-body" });
    const path = `/api/v1/app/${app.id}/endpoint/${ep.id}`;
    const first = (await h.svix.endpoint.getSecret(app.id, ep.id)).key;

    expect((await rotate(path)).status).toBe(204);
    const second = (await h.svix.endpoint.getSecret(app.id, ep.id)).key;
    expect(second).not.toBe(first);
    expect((await rotate(path, { body: "", type: "application/json" })).status).toBe(204);
    const secrets = (await h.hookline.store.getEndpoint(ep.id))!.secrets;
    expect(secrets.previous.map((p) => p.secret).sort()).toEqual([first, second].sort());

    const bad = await rotate(path, { body: '{"gracePeriodSeconds":-1}', type: "application/json" });
    expect(bad.status).toBe(422);
  });

  it("rotates an operational webhook endpoint's secret too", async () => {
    const ep = await h.svix.operationalWebhookEndpoint.create({ url: "https://example.com/ops" });
    const path = `/api/v1/operational-webhook/endpoint/${ep.id}`;
    const before = (await h.svix.operationalWebhookEndpoint.getSecret(ep.id)).key;
    expect((await rotate(path)).status).toBe(204);
    expect((await h.svix.operationalWebhookEndpoint.getSecret(ep.id)).key).not.toBe(before);
  });
});
