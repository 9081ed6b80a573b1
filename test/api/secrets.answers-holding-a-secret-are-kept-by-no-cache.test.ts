/**
 * The portal reads an endpoint's signing secret in the customer's browser, and a token (a portal
 * link's too) is shown once when made. Those answers said nothing of caching, so a browser or a proxy could keep a copy
 * of a secret on disk. They now say `Cache-Control: no-store`, as every API answer does since
 * (caching.every-api-answer-is-kept-by-no-cache.test.ts).
 */
import { afterAll, beforeAll, expect, it } from "vitest";
import { startHookline, type TestHookline } from "../support/hookline.js";

let h: TestHookline;
beforeAll(async () => {
  h = await startHookline();
});
afterAll(async () => h.stop());

const cacheControl = async (method: string, path: string, body?: unknown) => {
  const res = await fetch(`${h.url}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${h.token}`,
      ...(body === undefined ? {} : { "content-type": "application/json" }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  expect(res.status).toBeLessThan(300);
  return res.headers.get("cache-control");
};

it("a signing secret, a new token and a portal link are answered with no-store", async () => {
  const app = await h.svix.application.create({ name: "Acme" });
  const ep = await h.svix.endpoint.create(app.id, { url: "https://example.com/hook" });
  const ops = await h.svix.operationalWebhookEndpoint.create({ url: "https://example.com/ops" });

  expect(await cacheControl("GET", `/api/v1/app/${app.id}/endpoint/${ep.id}/secret`)).toBe(
    "no-store",
  );
  expect(await cacheControl("GET", `/api/v1/operational-webhook/endpoint/${ops.id}/secret`)).toBe(
    "no-store",
  );
  expect(
    await cacheControl("POST", "/api/v1/tokens", { name: "ci", scope: "app", appId: app.id }),
  ).toBe("no-store");
  expect(await cacheControl("POST", `/api/v1/auth/app-portal-access/${app.id}`, {})).toBe(
    "no-store",
  );
});
