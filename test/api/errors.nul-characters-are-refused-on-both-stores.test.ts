/**
 * A NUL character means nothing in any of hookline's text fields, and no PostgreSQL text column
 * can hold one: wherever a request carries one (body, query, path), the API answers 422 naming
 * the field, on PostgreSQL as on SQLite, never a 500, and writes nothing. A message payload is
 * the caller's own JSON, stored and delivered as written, so a `\u0000` escape in it is kept (and
 * in an event type's schemas, JSON documents of the caller's as well).
 */
import { Svix } from "svix";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startHooklineOn, type TestHookline } from "../support/hookline.js";

const NUL = "\u0000";

describe.each(["sqlite", "postgres"] as const)("on %s", (kind) => {
  let t: TestHookline;
  let appId = "";
  let appToken = "";
  beforeAll(async () => {
    t = await startHooklineOn(kind);
    appId = (await t.svix.application.create({ name: "nul", uid: "nul-app" })).id;
    const made = await t.api<{ token: string }>("POST", "/api/v1/tokens", {
      name: "app",
      scope: "app",
      appId,
    });
    appToken = made.body.token;
  });
  afterAll(() => t.stop());

  const refused = async (
    method: string,
    path: string,
    body: unknown,
    loc: (string | number)[],
    token = t.token,
  ) => {
    const res = await fetch(`${t.url}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${token}`,
        ...(body === undefined ? {} : { "content-type": "application/json" }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    expect(res.status, `${method} ${path}`).toBe(422);
    const answer = (await res.json()) as { detail: { loc: unknown[] }[] };
    expect(answer.detail.map((p) => p.loc)).toContainEqual(loc);
  };

  it("in body fields, metadata keys and values", async () => {
    await refused("POST", "/api/v1/app", { name: `a${NUL}b` }, ["body", "name"]);
    await refused(
      "POST",
      `/api/v1/app/${appId}/endpoint`,
      {
        url: "https://example.com/hook",
        description: `d${NUL}`,
      },
      ["body", "description"],
    );
    await refused(
      "POST",
      `/api/v1/app/${appId}/endpoint`,
      {
        url: "https://example.com/hook",
        metadata: { [`k${NUL}`]: "v", k: `v${NUL}` },
      },
      ["body", "metadata", "k"],
    );
    await refused(
      "POST",
      `/api/v1/app/${appId}/msg`,
      {
        eventType: "order.paid",
        eventId: `e${NUL}`,
        payload: {},
      },
      ["body", "eventId"],
    );
    await refused("POST", "/api/v1/tokens", { name: `t${NUL}`, scope: "admin" }, ["body", "name"]);
    await refused("POST", "/api/v1/event-type", { name: "order.paid", description: NUL }, [
      "body",
      "description",
    ]);
    expect((await t.svix.application.list()).data.map((a) => a.id)).toEqual([appId]);
    expect((await t.svix.endpoint.list(appId)).data).toEqual([]);
    expect((await t.svix.message.list(appId)).data).toEqual([]);
  });

  it("in the query and the path, with an admin token or an application's", async () => {
    await refused("GET", `/api/v1/app/${appId}/msg?iterator=a%00b`, undefined, [
      "query",
      "iterator",
    ]);
    await refused("GET", "/api/v1/app/a%00b", undefined, ["path", "app_id"]);
    await refused("GET", `/api/v1/app/${appId}/endpoint/e%00p`, undefined, ["path", "endpoint_id"]);
    // Svix clients send an idempotency key with every POST: the key's scope is the path.
    const posted = await fetch(`${t.url}/api/v1/app/a%00b/msg`, {
      method: "POST",
      headers: {
        authorization: `Bearer ${t.token}`,
        "content-type": "application/json",
        "idempotency-key": "k-1",
      },
      body: JSON.stringify({ eventType: "order.paid", payload: {} }),
    });
    expect(posted.status).toBe(422);
    const res = await fetch(`${t.url}/api/v1/app/a%00b/endpoint`, {
      headers: { authorization: `Bearer ${appToken}` },
    });
    expect(res.status).toBe(404);
  });

  it("keeps a \\u0000 escape inside a message payload as the caller wrote it", async () => {
    const svix = new Svix(appToken, { serverUrl: t.url });
    const msg = await svix.message.create(appId, {
      eventType: "order.paid",
      payload: { note: `a${NUL}b` },
    });
    expect((await svix.message.get(appId, msg.id)).payload).toEqual({ note: `a${NUL}b` });
  });

  it("keeps a \\u0000 escape inside an event type's schemas, the caller's own JSON too", async () => {
    const schemas = { "1": { type: "object", examples: [{ note: `a${NUL}b` }] } };
    await t.svix.eventType.create({ name: "order.noted", description: "noted", schemas });
    expect((await t.svix.eventType.get("order.noted")).schemas).toEqual(schemas);
  });
});
