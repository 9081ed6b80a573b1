/**
 * An endpoint's custom headers often carry the receiver's own credentials (an `X-Api-Key`, a
 * basic-auth pair under another name): security.md encrypts them at rest for that reason, and
 * `getHeaders` shows every value but those under a handful of names Svix calls sensitive. The
 * portal reads them in the customer's browser, yet the answer said nothing of caching, unlike the
 * signing secret's beside it. The headers' answers, an application's endpoint's and an
 * operational webhook endpoint's, now say `Cache-Control: no-store` too.
 */
import { afterAll, beforeAll, expect, it } from "vitest";
import { startHookline, type TestHookline } from "../support/hookline.js";

let h: TestHookline;
beforeAll(async () => {
  h = await startHookline();
});
afterAll(async () => h.stop());

const read = async (path: string) => {
  const res = await fetch(`${h.url}${path}`, { headers: { authorization: `Bearer ${h.token}` } });
  expect(res.status).toBe(200);
  return { cacheControl: res.headers.get("cache-control"), body: await res.text() };
};

it("an endpoint's custom headers are answered with no-store, an operational one's too", async () => {
  const app = await h.svix.application.create({ name: "Acme" });
  const headers = { "X-Api-Key": "receiver-credential-31" };
  const ep = await h.svix.endpoint.create(app.id, { url: "https://example.com/hook", headers });
  const ops = await h.svix.operationalWebhookEndpoint.create({ url: "https://example.com/ops" });
  await h.svix.operationalWebhookEndpoint.updateHeaders(ops.id, { headers });

  for (const path of [
    `/api/v1/app/${app.id}/endpoint/${ep.id}/headers`,
    `/api/v1/operational-webhook/endpoint/${ops.id}/headers`,
  ]) {
    const answer = await read(path);
    expect(answer.body).toContain("receiver-credential-31");
    expect(answer.cacheControl).toBe("no-store");
  }
});
