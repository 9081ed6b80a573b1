/**
 * A custom header value hookline could never send (a control character, DEL, or a character
 * outside Latin-1, which HTTP/1.1 header bytes cannot carry) is refused when it is saved, with a
 * 422 naming the header, instead of being stored and then failing every delivery as a "network"
 * error until the message is dead-lettered. Values that are accepted really go out.
 */
import { createServer, type IncomingHttpHeaders } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { HttpSender } from "../../src/engine/sender.js";
import { startApi, type ApiHarness } from "./harness.js";

let api: ApiHarness;
let appId = "";
let headersPath = "";
beforeAll(async () => {
  api = await startApi();
  appId = (await api.svix.application.create({ name: "headers" })).id;
  const ep = await api.svix.endpoint.create(appId, { url: "https://example.com/a" });
  headersPath = `/api/v1/app/${appId}/endpoint/${ep.id}/headers`;
});
afterAll(async () => api.close());

const UNSENDABLE = ["price \u20ac5", "a\u0001b", "a\u007fb", "\u0000", "emoji \u{1f600}"];
const SENDABLE = ["caf\u00e9", "tab\there", "plain; q=1"];

async function refusedAt(res: Response): Promise<unknown[][]> {
  expect(res.status).toBe(422);
  const body = (await res.json()) as { detail: { loc: unknown[] }[] };
  return body.detail.map((p) => p.loc);
}

describe("custom header values hookline cannot send are refused when saved", () => {
  it.each(UNSENDABLE)("creating an endpoint with %j", async (value) => {
    const res = await api.call("POST", `/api/v1/app/${appId}/endpoint`, {
      url: "https://example.com/b",
      headers: { "x-note": value },
    });
    expect(await refusedAt(res)).toContainEqual(["body", "headers", "x-note"]);
  });

  it.each(UNSENDABLE)("replacing or patching the headers with %j", async (value) => {
    const put = await api.call("PUT", headersPath, { headers: { "x-note": value } });
    expect(await refusedAt(put)).toContainEqual(["body", "headers", "x-note"]);
    const patch = await api.call("PATCH", headersPath, { headers: { "x-note": value } });
    expect(await refusedAt(patch)).toContainEqual(["body", "headers", "x-note"]);
    const stored = (await (await api.call("GET", headersPath)).json()) as {
      headers: Record<string, string>;
    };
    expect(stored.headers).not.toHaveProperty("x-note");
  });
});

it("one header name spelled twice in other cases is refused, since both would be sent", async () => {
  const put = await api.call("PUT", headersPath, { headers: { "X-Tenant": "a", "x-tenant": "b" } });
  expect(await refusedAt(put)).toContainEqual(["body", "headers", "x-tenant"]);
  const stored = (await (await api.call("GET", headersPath)).json()) as {
    headers: Record<string, string>;
  };
  expect(stored.headers).not.toHaveProperty("X-Tenant");
});

it("values that are accepted reach the receiver as they were saved", async () => {
  const headers = Object.fromEntries(SENDABLE.map((v, i) => [`x-ok-${i}`, v]));
  expect((await api.call("PUT", headersPath, { headers })).status).toBe(204);

  const seen: IncomingHttpHeaders[] = [];
  const receiver = createServer((req, res) => {
    seen.push(req.headers);
    res.end();
  });
  await new Promise<void>((done) => receiver.listen(0, "127.0.0.1", done));
  const sender = new HttpSender();
  try {
    const { port } = receiver.address() as AddressInfo;
    const result = await sender.send({
      url: `http://127.0.0.1:${port}/`,
      headers,
      body: Buffer.from("{}"),
      timeoutMs: 5_000,
    });
    expect(result).toMatchObject({ status: 200, error: null });
    // Node reads header bytes as Latin-1, the way undici writes them.
    for (const [name, value] of Object.entries(headers)) expect(seen[0]![name]).toBe(value);
  } finally {
    await sender.close();
    receiver.close();
  }
});
