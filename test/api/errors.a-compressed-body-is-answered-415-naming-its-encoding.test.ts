import { gzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startApi, type ApiHarness } from "./harness.js";

let api: ApiHarness;
beforeAll(async () => {
  api = await startApi();
});
afterAll(() => api.close());

const post = (body: Buffer | string, encoding: string) =>
  fetch(`${api.url}/api/v1/app`, {
    method: "POST",
    headers: {
      authorization: `Bearer ${api.token}`,
      "content-type": "application/json",
      "content-encoding": encoding,
    },
    body,
  });

describe("a request body sent with a Content-Encoding", () => {
  it("compressed, is answered 415 naming the encoding, not as bad JSON", async () => {
    const res = await post(gzipSync(JSON.stringify({ name: "zipped" })), "gzip");
    expect(res.status).toBe(415);
    expect(res.headers.get("accept-encoding")).toBe("identity");
    expect(await res.json()).toEqual({
      code: "unsupported_content_encoding",
      detail: "send the body uncompressed: Content-Encoding gzip is not accepted",
    });
    expect((await api.svix.application.list()).data).toEqual([]);
  });

  it("identity, is taken as it is", async () => {
    const res = await post(JSON.stringify({ name: "plain" }), "identity");
    expect(res.status).toBe(201);
  });
});
