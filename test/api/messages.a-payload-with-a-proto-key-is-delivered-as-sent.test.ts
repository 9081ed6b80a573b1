/**
 * A `__proto__` key is valid JSON, and a customer's event may carry one (or a
 * `constructor.prototype`): a message's payload holding either is accepted and delivered byte for
 * byte, never refused as "not valid JSON". JSON.parse makes such a key an own property, so no
 * object's prototype changes. Outside a payload no field of hookline's is so named, and a record
 * such as metadata would drop the key unseen: there it is refused, 422 naming where it is.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { deliveryOf, startHookline, type TestHookline } from "../support/hookline.js";
import { Receiver } from "../support/receiver.js";

let t: TestHookline;
let rx: Receiver;
let appId = "";
beforeAll(async () => {
  t = await startHookline();
  rx = await Receiver.start();
  appId = (await t.svix.application.create({ name: "proto", uid: "proto-app" })).id;
  await t.svix.endpoint.create(appId, { url: rx.url("/hook") });
});
afterAll(async () => {
  await t.stop();
  await rx.close();
});

// Raw JSON text: an object literal's `__proto__` would set its prototype, not add a key.
const post = (path: string, json: string) =>
  fetch(`${t.url}${path}`, {
    method: "POST",
    headers: { authorization: `Bearer ${t.token}`, "content-type": "application/json" },
    body: json,
  });

const locsOf = async (res: Response): Promise<unknown[]> =>
  ((await res.json()) as { detail: { loc: unknown[] }[] }).detail.map((p) => p.loc);

describe("a __proto__ key", () => {
  it("in a payload is accepted, stored and delivered as sent", async () => {
    const payload = '{"__proto__":{"x":1},"constructor":{"prototype":{"y":2}},"a":1}';
    const res = await post(`/api/v1/app/${appId}/msg`, `{"eventType":"p.p","payload":${payload}}`);
    expect(res.status).toBe(202);
    const { id } = (await res.json()) as { id: string };

    await t.waitFor(deliveryOf(id, "succeeded"));
    expect(rx.on("/hook")[0]!.body.toString()).toBe(payload);
    const read = await t.api<{ payload: Record<string, unknown> }>(
      "GET",
      `/api/v1/app/${appId}/msg/${id}`,
    );
    expect(Object.keys(read.body.payload)).toEqual(["__proto__", "constructor", "a"]);
    // Nothing reached Object.prototype along the way.
    expect(({} as Record<string, unknown>).x).toBeUndefined();
    expect(({} as Record<string, unknown>).y).toBeUndefined();
  });

  it("in an event type's schemas, the caller's own JSON too, is kept", async () => {
    const res = await post(
      "/api/v1/event-type",
      '{"name":"proto.kept","description":"d","schemas":{"1":{"__proto__":{"type":"object"}}}}',
    );
    expect(res.status).toBe(201);
    const read = await t.api<{ schemas: Record<string, object> }>(
      "GET",
      "/api/v1/event-type/proto.kept",
    );
    expect(Object.keys(read.body.schemas["1"]!)).toEqual(["__proto__"]);
  });

  it("anywhere else is refused, 422 naming where it is, escaped or not", async () => {
    const app = await post("/api/v1/app", '{"name":"x","__proto__":{"uid":"admin"}}');
    expect(app.status).toBe(422);
    expect(await locsOf(app)).toEqual([["body", "__proto__"]]);

    const escaped = await post("/api/v1/app", '{"name":"x","\\u005f_proto__":{}}');
    expect(escaped.status).toBe(422);
    expect(await locsOf(escaped)).toEqual([["body", "__proto__"]]);

    const metadata = await post(
      `/api/v1/app/${appId}/endpoint`,
      `{"url":"${rx.url("/m")}","metadata":{"__proto__":"v","k":"v"}}`,
    );
    expect(metadata.status).toBe(422);
    expect(await locsOf(metadata)).toEqual([["body", "metadata", "__proto__"]]);

    const beside = await post(
      `/api/v1/app/${appId}/msg`,
      '{"eventType":"p.p","payload":{},"application":{"name":"n","__proto__":{}}}',
    );
    expect(beside.status).toBe(422);
    expect(await locsOf(beside)).toEqual([["body", "application", "__proto__"]]);
  });

  it("as a constructor.prototype outside a payload is an unknown field, left out", async () => {
    const res = await post("/api/v1/app", '{"name":"ctor","constructor":{"prototype":{"z":1}}}');
    expect(res.status).toBe(201);
    expect(({} as Record<string, unknown>).z).toBeUndefined();
  });
});
