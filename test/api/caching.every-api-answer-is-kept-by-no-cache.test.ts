/**
 * Only the answers holding a secret (a signing secret, custom header values, a new token) said
 * `Cache-Control: no-store`; an endpoint's URL, a message's payload, an attempt's answer from the
 * receiver said nothing of caching, so a browser (the portal's, the console's) or a proxy could
 * keep a copy of a customer's data. Every API answer now says `no-store`: what the handlers
 * answer, through the Svix client and to a portal link's token, and the answers given before a
 * handler runs (a refused token, a path that names nothing, a refused query, an idempotency
 * key's replay). The dashboard's page and its hashed assets keep their own caching.
 */
import { afterAll, beforeAll, expect, it } from "vitest";
import { deliveryOf, startHookline, type TestHookline } from "../support/hookline.js";
import { Receiver } from "../support/receiver.js";

let h: TestHookline;
let receiver: Receiver;
beforeAll(async () => {
  h = await startHookline();
  receiver = await Receiver.start();
});
afterAll(async () => {
  await h.stop();
  await receiver.close();
});

/** The answer's status and what it says of caching. */
const cacheControl = async (
  method: string,
  path: string,
  o: { token?: string | null; body?: unknown; headers?: Record<string, string> } = {},
) => {
  const token = o.token === undefined ? h.token : o.token;
  const res = await fetch(`${h.url}${path}`, {
    method,
    headers: {
      ...(token === null ? {} : { authorization: `Bearer ${token}` }),
      ...(o.body === undefined ? {} : { "content-type": "application/json" }),
      ...o.headers,
    },
    body: o.body === undefined ? undefined : JSON.stringify(o.body),
  });
  await res.arrayBuffer();
  return { status: res.status, cacheControl: res.headers.get("cache-control") };
};

it("answers with an endpoint's URL, a payload or an attempt say no-store, to admin and portal tokens", async () => {
  const app = await h.svix.application.create({ name: "Acme" });
  const ep = await h.svix.endpoint.create(app.id, { url: receiver.url("/hook") });
  const msg = await h.svix.message.create(app.id, { eventType: "invoice.paid", payload: { n: 1 } });
  await h.waitFor(deliveryOf(msg.id, "succeeded"));
  const [attempt] = (await h.svix.messageAttempt.listByMsg(app.id, msg.id)).data;
  const job = await h.svix.endpoint.recover(app.id, ep.id, { since: new Date(0) });
  const portal = await h.svix.authentication.appPortalAccess(app.id, {});

  const a = `/api/v1/app/${app.id}`;
  const reads = [
    "/api/v1/app",
    a,
    `${a}/endpoint`,
    `${a}/endpoint/${ep.id}`,
    `${a}/endpoint/${ep.id}/stats`,
    `${a}/msg`,
    `${a}/msg/${msg.id}`,
    `${a}/attempt/endpoint/${ep.id}`,
    `${a}/attempt/msg/${msg.id}`,
    `${a}/msg/${msg.id}/attempt/${attempt!.id}`,
    `${a}/msg/${msg.id}/endpoint`,
    `${a}/endpoint/${ep.id}/msg`,
    "/api/v1/event-type",
    "/api/v1/dlq",
    `/api/v1/dlq/replay/${job.id}`,
    "/api/v1/health",
    "/api/v1/openapi.json",
    "/metrics",
  ];
  for (const path of reads) {
    const got = await cacheControl("GET", path);
    expect(got.status, path).toBeLessThan(300);
    expect(got.cacheControl, path).toBe("no-store");
  }
  // A portal link's token reads its application's endpoints and messages in the customer's browser.
  for (const path of [`${a}/endpoint/${ep.id}`, `${a}/msg/${msg.id}`]) {
    expect(await cacheControl("GET", path, { token: portal.token }), path).toEqual({
      status: 200,
      cacheControl: "no-store",
    });
  }
  // What a change answers holds the record too.
  const made = await cacheControl("POST", `${a}/msg`, {
    body: { eventType: "invoice.paid", payload: { n: 2 } },
  });
  expect(made).toEqual({ status: 202, cacheControl: "no-store" });
  const patched = await cacheControl("PATCH", `${a}/endpoint/${ep.id}`, {
    body: { description: "main" },
  });
  expect(patched).toEqual({ status: 200, cacheControl: "no-store" });
  // The secrets' answers still say it, as they did.
  expect(await cacheControl("GET", `${a}/endpoint/${ep.id}/secret`)).toEqual({
    status: 200,
    cacheControl: "no-store",
  });
});

it("answers given before a handler runs say no-store too, an idempotency key's replay among them", async () => {
  const refused = [
    await cacheControl("GET", "/api/v1/app", { token: null }),
    await cacheControl("GET", "/api/v1/app", { token: "hl_admin_nothing" }),
    await cacheControl("GET", "/api/v1/no-such-route"),
    await cacheControl("GET", "/api/v1/app?limit=0"),
    // A path Fastify cannot decode is answered before any hook runs.
    await cacheControl("GET", "/api/v1/app/%E0%A4%A"),
  ];
  expect(refused).toEqual([
    { status: 401, cacheControl: "no-store" },
    { status: 401, cacheControl: "no-store" },
    { status: 404, cacheControl: "no-store" },
    { status: 422, cacheControl: "no-store" },
    { status: 400, cacheControl: "no-store" },
  ]);
  const post = () =>
    cacheControl("POST", "/api/v1/app", {
      body: { name: "Keyed" },
      headers: { "idempotency-key": "caching-key" },
    });
  expect(await post()).toEqual({ status: 201, cacheControl: "no-store" });
  expect(await post()).toEqual({ status: 201, cacheControl: "no-store" });
});

it("the dashboard's page and its hashed assets keep their own caching", async () => {
  const page = await fetch(`${h.url}/ui/`);
  const html = await page.text();
  expect(page.headers.get("cache-control")).toBe("no-cache");
  const script = /src="(\/ui\/assets\/[^"]+\.js)"/.exec(html)?.[1];
  const asset = await fetch(`${h.url}${script}`);
  await asset.arrayBuffer();
  expect(asset.headers.get("cache-control")).toBe("public, max-age=31536000, immutable");
});
