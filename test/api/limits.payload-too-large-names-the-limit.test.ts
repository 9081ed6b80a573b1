import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startApi, type ApiHarness } from "./harness.js";

let api: ApiHarness;
beforeAll(async () => {
  api = await startApi({ maxBodyBytes: 2048 });
});
afterAll(() => api.close());

describe("a body over HOOKLINE_MAX_BODY_BYTES", () => {
  it("is told how many bytes the server takes, sent with a length or chunked", async () => {
    const body = JSON.stringify({ name: "x".repeat(4096) });
    const withLength = await api.call("POST", "/api/v1/app", body);
    const chunked = await fetch(`${api.url}/api/v1/app`, {
      method: "POST",
      headers: { authorization: `Bearer ${api.token}`, "content-type": "application/json" },
      body: new Blob([body]).stream(),
      duplex: "half",
    } as RequestInit);
    for (const res of [withLength, chunked]) {
      expect(res.status).toBe(413);
      expect(await res.json()).toEqual({
        code: "payload_too_large",
        detail: "the request body is larger than the server accepts (at most 2048 bytes)",
      });
    }
  });
});
