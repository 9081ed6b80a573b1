import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startApi, type ApiHarness } from "./harness.js";

let api: ApiHarness;
let small: ApiHarness;
beforeAll(async () => {
  api = await startApi();
  small = await startApi({ maxBodyBytes: 2048 });
});
afterAll(async () => {
  await api.close();
  await small.close();
});

describe("bad requests get a clear JSON answer, never a 500", () => {
  it("malformed JSON is a 400 with a JSON body", async () => {
    const res = await api.call("POST", "/api/v1/app", '{"name": "x",');
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ code: "invalid_json" });
  });

  it("a body that is not JSON is a 415", async () => {
    const res = await api.call("POST", "/api/v1/app", "name=x", { "content-type": "text/plain" });
    expect(res.status).toBe(415);
    expect(await res.json()).toMatchObject({ code: "unsupported_media_type" });
  });

  it("a body over the limit is a 413 with a JSON body", async () => {
    const app = await small.svix.application.create({ name: "small" });
    const res = await small.call("POST", `/api/v1/app/${app.id}/msg`, {
      eventType: "big",
      payload: { blob: "x".repeat(4096) },
    });
    expect(res.status).toBe(413);
    expect(await res.json()).toMatchObject({ code: "payload_too_large" });
  });

  it("a JSON body with a __proto__ key outside a payload is a 422 naming the key", async () => {
    const res = await api.call("POST", "/api/v1/app", '{"name":"x","__proto__":{"admin":true}}');
    expect(res.status).toBe(422);
    expect(await res.json()).toMatchObject({ detail: [{ loc: ["body", "__proto__"] }] });
  });

  it("an empty JSON body where one is required is a 422 naming the body", async () => {
    const res = await api.call("POST", "/api/v1/app", "");
    expect(res.status).toBe(422);
    expect(await res.json()).toMatchObject({ detail: [{ loc: ["body"] }] });
  });

  it("an unknown route or a missing resource is a JSON 404", async () => {
    const route = await api.call("GET", "/api/v1/nope");
    expect(route.status).toBe(404);
    expect(await route.json()).toMatchObject({ code: "not_found" });
    const app = await api.call("GET", "/api/v1/app/app_missing");
    expect(app.status).toBe(404);
    expect(await app.json()).toEqual({
      code: "not_found",
      detail: "application app_missing not found",
    });
  });

  it("a malformed percent-encoding in the path is a 400 with a JSON body", async () => {
    const res = await api.call("GET", "/api/v1/app/%E0%A4%A");
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ code: "bad_request" });
  });

  it("a store that is gone is a 503, not a 500", async () => {
    const gone = await startApi();
    await gone.store.close();
    const res = await gone.call("GET", "/api/v1/app");
    expect(res.status).toBe(503);
    expect(await res.json()).toMatchObject({ code: "store_unavailable" });
    expect((await fetch(`${gone.url}/api/v1/health`)).status).toBe(503);
    await gone.close();
  });
});
