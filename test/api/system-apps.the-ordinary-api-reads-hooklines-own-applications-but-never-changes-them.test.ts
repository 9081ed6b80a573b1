/**
 * hookline's own applications (uid `hookline-operational`, `hookline-drill`) are listed and
 * readable through /api/v1/app, so operators can debug their deliveries, but every change there
 * is refused with 409, naming what to use instead, and writes nothing: deleting the operational
 * one used to drop every operator's subscription, and a message posted to it forged an event.
 * Their own routes (operational webhook endpoints, the drill) keep working. Nor is a portal link or
 * an application token given to them: either could read the operational endpoints' secrets, and a
 * portal link is made to be handed to a customer.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DRILL_APP_UID, OPERATIONAL_APP_UID } from "../../src/observability/system-apps.js";
import { startHookline, type TestHookline } from "../support/hookline.js";
import { Receiver } from "../support/receiver.js";

let h: TestHookline;
let rx: Receiver;
let opEndpointId: string;
beforeAll(async () => {
  h = await startHookline();
  rx = await Receiver.start(() => ({ status: 204 }));
  const res = await h.api<{ id: string }>("POST", "/api/v1/operational-webhook/endpoint", {
    url: rx.url("/ops"),
  });
  expect(res.status).toBe(201);
  opEndpointId = res.body.id;
});
afterAll(async () => {
  await h.stop();
  await rx.close();
});

type Refusal = { code: string; detail: string };

/** Every request that would change the application at `app`, with its endpoint `ep`. */
const changes = (app: string, ep: string): [string, string, unknown][] => [
  ["DELETE", `/api/v1/app/${app}`, undefined],
  ["PUT", `/api/v1/app/${app}`, { name: "renamed" }],
  ["PATCH", `/api/v1/app/${app}`, { name: "renamed" }],
  ["PATCH", `/api/v1/app/${app}`, { uid: "mine-now" }],
  ["PUT", `/api/v1/app/${app}/delivery-policy`, { timeoutMs: 1000 }],
  ["POST", `/api/v1/app/${app}/msg`, { eventType: "alert.firing", payload: { forged: true } }],
  ["POST", `/api/v1/app/${app}/endpoint`, { url: rx.url("/sneaky") }],
  ["PUT", `/api/v1/app/${app}/endpoint/${ep}`, { url: rx.url("/sneaky") }],
  ["PUT", `/api/v1/app/${app}/endpoint/new-one`, { url: rx.url("/sneaky") }],
  ["PATCH", `/api/v1/app/${app}/endpoint/${ep}`, { url: rx.url("/sneaky") }],
  ["DELETE", `/api/v1/app/${app}/endpoint/${ep}`, undefined],
  ["POST", `/api/v1/app/${app}/endpoint/${ep}/secret/rotate`, {}],
  ["PUT", `/api/v1/app/${app}/endpoint/${ep}/headers`, { headers: { "x-a": "1" } }],
  ["PATCH", `/api/v1/app/${app}/endpoint/${ep}/headers`, { headers: { "x-a": "1" } }],
  ["PUT", `/api/v1/app/${app}/endpoint/${ep}/delivery-policy`, { timeoutMs: 1000 }],
  ["POST", `/api/v1/app/${app}/endpoint/${ep}/send-example`, { eventType: "alert.firing" }],
];

/** What a reader sees of the application and its endpoints: unchanged by a refused request. */
const snapshot = async (app: string) => ({
  app: (await h.api("GET", `/api/v1/app/${app}`)).body,
  endpoints: (await h.api("GET", `/api/v1/app/${app}/endpoint`)).body,
  messages: (await h.api("GET", `/api/v1/app/${app}/msg`)).body,
});

describe("the operational webhooks' application through /api/v1/app", () => {
  it("is listed and readable, with its endpoints, secrets, messages and attempts", async () => {
    const apps = await h.api<{ data: { uid: string }[] }>("GET", "/api/v1/app");
    expect(apps.body.data.map((a) => a.uid)).toContain(OPERATIONAL_APP_UID);
    const base = `/api/v1/app/${OPERATIONAL_APP_UID}`;
    for (const path of [
      base,
      `${base}/endpoint`,
      `${base}/endpoint/${opEndpointId}`,
      `${base}/endpoint/${opEndpointId}/secret`,
      `${base}/endpoint/${opEndpointId}/headers`,
      `${base}/endpoint/${opEndpointId}/delivery-policy`,
      `${base}/msg`,
      `${base}/attempt/endpoint/${opEndpointId}`,
    ]) {
      expect((await h.api("GET", path)).status, path).toBe(200);
    }
  });

  it("refuses every change with 409 naming the operational webhook API, writing nothing", async () => {
    const before = await snapshot(OPERATIONAL_APP_UID);
    for (const [method, path, body] of changes(OPERATIONAL_APP_UID, opEndpointId)) {
      const res = await h.api<Refusal>(method, path, body);
      expect(res.status, `${method} ${path}`).toBe(409);
      expect(res.body.code).toBe("conflict");
      expect(res.body.detail).toContain("/api/v1/operational-webhook/endpoint");
    }
    expect(await snapshot(OPERATIONAL_APP_UID)).toEqual(before);
    const listed = await h.svix.operationalWebhookEndpoint.list();
    expect(listed.data.map((e) => e.id)).toEqual([opEndpointId]);
    expect(rx.on("/sneaky")).toEqual([]);
  });

  it("is refused by its id as by its uid", async () => {
    const app = await h.svix.application.get(OPERATIONAL_APP_UID);
    expect((await h.api("DELETE", `/api/v1/app/${app.id}`)).status).toBe(409);
    expect((await h.svix.application.get(OPERATIONAL_APP_UID)).id).toBe(app.id);
  });

  it("leaves the operational webhook routes working", async () => {
    const ops = h.svix.operationalWebhookEndpoint;
    const made = await ops.create({ url: rx.url("/second"), filterTypes: ["alert.firing"] });
    const updated = await ops.update(made.id, { url: rx.url("/second-b") });
    expect(updated.url).toBe(rx.url("/second-b"));
    await ops.rotateSecret(made.id, {});
    await ops.updateHeaders(made.id, { headers: { "x-team": "ops" } });
    expect((await ops.getHeaders(made.id)).headers).toEqual({ "x-team": "ops" });
    await ops.delete(made.id);
    expect((await ops.list()).data.map((e) => e.id)).toEqual([opEndpointId]);
  });
});

describe("access to hookline's own applications", () => {
  it("refuses a portal link and an application token with 409, making no token", async () => {
    const tokensBefore = (await h.api<{ data: unknown[] }>("GET", "/api/v1/tokens")).body.data;
    const app = await h.svix.application.get(OPERATIONAL_APP_UID);
    for (const idOrUid of [OPERATIONAL_APP_UID, app.id]) {
      const link = await h.api<Refusal>("POST", `/api/v1/auth/app-portal-access/${idOrUid}`, {});
      expect(link.status).toBe(409);
      expect(link.body.detail).toContain("portal links and application tokens");
      const token = await h.api<Refusal>("POST", "/api/v1/tokens", {
        name: "sneaky",
        scope: "app",
        appId: idOrUid,
      });
      expect(token.status).toBe(409);
      expect(token.body.detail).toContain("operator console");
    }
    expect((await h.api<{ data: unknown[] }>("GET", "/api/v1/tokens")).body.data).toEqual(
      tokensBefore,
    );
  });

  it("still gives a customer's application a portal link", async () => {
    const app = await h.svix.application.create({ name: "Acme" });
    const link = await h.svix.authentication.appPortalAccess(app.id, {});
    expect(link.url).toContain("/portal/#");
  });
});

describe("the failure drill's application through /api/v1/app", () => {
  it("refuses every change with 409 naming the drill, and the drill still passes", async () => {
    const run = async () => {
      const res = await h.api<{ passed: boolean }>("POST", "/api/v1/drill");
      expect(res.status).toBe(200);
      return res.body.passed;
    };
    expect(await run()).toBe(true);
    const own = await h.api<{ data: { id: string; uid: string }[] }>(
      "GET",
      `/api/v1/app/${DRILL_APP_UID}/endpoint`,
    );
    const ep = own.body.data.find((e) => e.uid === "drill")!.id;
    for (const [method, path, body] of changes(DRILL_APP_UID, ep)) {
      const res = await h.api<Refusal>(method, path, body);
      expect(res.status, `${method} ${path}`).toBe(409);
      expect(res.body.detail).toContain("POST /api/v1/drill");
    }
    expect(await run()).toBe(true);
  });
});
