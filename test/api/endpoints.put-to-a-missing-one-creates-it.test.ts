/**
 * `PUT …/endpoint/{endpoint_id}` naming no endpoint of an existing application creates it (201)
 * as a POST would: a generated secret when the body has none (one it has: see
 * endpoints.a-put-that-creates-one-takes-its-secret-and-headers), the URL checked, and messages
 * delivered to it, signed.
 * As for applications, the path's uid is kept when the body has none, so sending the same PUT
 * again finds the endpoint the first one made.
 */
import { Webhook } from "standardwebhooks";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { newId } from "../../src/ids.js";
import { deliveryOf, startHookline, type TestHookline } from "../support/hookline.js";
import { Receiver } from "../support/receiver.js";

let t: TestHookline;
let rx: Receiver;
let appId = "";
beforeAll(async () => {
  t = await startHookline();
  rx = await Receiver.start();
  appId = (await t.svix.application.create({ name: "Acme", uid: "acme" })).id;
});
afterAll(async () => {
  await t.stop();
  await rx.close();
});

type EndpointOut = { id: string; uid: string | null; url: string; code?: string };
const put = (app: string, endpoint: string, body: unknown) =>
  t.api<EndpointOut>("PUT", `/api/v1/app/${app}/endpoint/${endpoint}`, body);
const endpointsOfAcme = async () => (await t.svix.endpoint.list(appId, { limit: 250 })).data;

describe("PUT of an endpoint that does not exist", () => {
  it("creates it with the path as its uid and a new secret (201); it is sent messages, signed", async () => {
    const made = await put("acme", "billing-hook", {
      url: rx.url("/billing"),
      description: "billing",
      filterTypes: ["invoice.paid"],
    });
    expect(made.status).toBe(201);
    expect(made.body.id).toMatch(/^ep_/);
    expect(made.body).toMatchObject({ uid: "billing-hook", url: rx.url("/billing") });

    const { key } = await t.svix.endpoint.getSecret(appId, "billing-hook");
    expect(key).toMatch(/^whsec_/);
    const msg = await t.svix.message.create(appId, {
      eventType: "invoice.paid",
      payload: { invoice: 7 },
    });
    await t.waitFor(deliveryOf(msg.id, "succeeded", made.body.id));
    const req = rx.on("/billing")[0]!;
    const verified = new Webhook(key).verify(req.body.toString(), {
      "webhook-id": req.headers["webhook-id"]!,
      "webhook-timestamp": req.headers["webhook-timestamp"]!,
      "webhook-signature": req.headers["webhook-signature"]!,
    });
    expect(verified).toEqual({ invoice: 7 });
  });

  it("is found again by the same PUT through the Svix client (one endpoint, its uid kept)", async () => {
    const first = await t.svix.endpoint.update(appId, "audit-hook", { url: rx.url("/audit") });
    expect(first.uid).toBe("audit-hook");
    for (const description of ["once", "twice"]) {
      const again = await t.svix.endpoint.update(appId, "audit-hook", {
        url: rx.url("/audit"),
        description,
      });
      expect(again).toMatchObject({ id: first.id, uid: "audit-hook", description });
    }
    const found = (await endpointsOfAcme()).filter((e) => e.url === rx.url("/audit"));
    expect(found.map((e) => e.id)).toEqual([first.id]);
  });

  it("creates one with a new id and the body's uid when the path is an id nothing has", async () => {
    const missing = newId("ep");
    const made = await put("acme", missing, { url: rx.url("/by-id"), uid: "by-id" });
    expect(made.status).toBe(201);
    expect(made.body.id).not.toBe(missing);
    expect(made.body.uid).toBe("by-id");
  });

  it("answers 404 and creates nothing when the application does not exist", async () => {
    const res = await put("no-such-app", "hook", { url: rx.url("/nowhere") });
    expect(res.status).toBe(404);
    expect((await t.api("GET", "/api/v1/app/no-such-app")).status).toBe(404);
  });

  it("answers 409 and creates nothing when the body's uid is another endpoint's", async () => {
    await t.svix.endpoint.create(appId, { url: rx.url("/holder"), uid: "held" });
    const res = await put("acme", "wants-held", { url: rx.url("/taker"), uid: "held" });
    expect(res.status).toBe(409);
    expect(res.body.code).toBe("conflict");
    expect((await endpointsOfAcme()).filter((e) => e.url === rx.url("/taker"))).toEqual([]);
  });

  it("is open to the application's own token, as a POST is", async () => {
    const made = await t.api<{ token: string }>("POST", "/api/v1/tokens", {
      name: "acme",
      scope: "app",
      appId,
    });
    const res = await fetch(`${t.url}/api/v1/app/acme/endpoint/by-token`, {
      method: "PUT",
      headers: {
        authorization: `Bearer ${made.body.token}`,
        "content-type": "application/json",
      },
      body: JSON.stringify({ url: rx.url("/by-token") }),
    });
    expect(res.status).toBe(201);
    expect(await res.json()).toMatchObject({ uid: "by-token" });
  });
});
