import { request } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MAX_JSON_DEPTH } from "../../src/api/validation.js";
import { startApi, type ApiHarness } from "./harness.js";

let api: ApiHarness;
let appId: string;
beforeAll(async () => {
  api = await startApi({ maxHeaderBytes: 4096 });
  appId = (await api.svix.application.create({ name: "limits" })).id;
});
afterAll(() => api.close());

async function problems(res: Response): Promise<unknown[][]> {
  expect(res.status).toBe(422);
  const body = (await res.json()) as { detail: { loc: unknown[] }[] };
  return body.detail.map((p) => p.loc);
}

describe("field limits answer 422 naming the field", () => {
  it("metadata: key and value lengths, number of entries", async () => {
    const many = Object.fromEntries(Array.from({ length: 101 }, (_, i) => [`k${i}`, "v"]));
    expect(
      await problems(await api.call("POST", "/api/v1/app", { name: "a", metadata: many })),
    ).toContainEqual(["body", "metadata"]);
    const long = { metadata: { k: "v".repeat(4097) }, name: "a" };
    expect(await problems(await api.call("POST", "/api/v1/app", long))).toContainEqual([
      "body",
      "metadata",
      "k",
    ]);
  });

  it("custom headers: count and name length", async () => {
    const url = "https://example.com/hook";
    const many = Object.fromEntries(Array.from({ length: 51 }, (_, i) => [`x-h${i}`, "v"]));
    expect(
      await problems(
        await api.call("POST", `/api/v1/app/${appId}/endpoint`, { url, headers: many }),
      ),
    ).toContainEqual(["body", "headers"]);
    const longName = { [`x-${"a".repeat(300)}`]: "v" };
    const locs = await problems(
      await api.call("POST", `/api/v1/app/${appId}/endpoint`, { url, headers: longName }),
    );
    expect(locs[0]?.slice(0, 2)).toEqual(["body", "headers"]);
  });

  it("a payload nested deeper than the limit", async () => {
    let payload: Record<string, unknown> = {};
    for (let i = 0; i < MAX_JSON_DEPTH + 5; i++) payload = { a: payload };
    expect(
      await problems(
        await api.call("POST", `/api/v1/app/${appId}/msg`, { eventType: "deep", payload }),
      ),
    ).toContainEqual(["body", "payload"]);
  });

  it("uids, event types, URLs and ids past their lengths", async () => {
    expect(
      await problems(await api.call("POST", "/api/v1/app", { name: "a", uid: "u".repeat(257) })),
    ).toContainEqual(["body", "uid"]);
    expect(
      await problems(
        await api.call("POST", `/api/v1/app/${appId}/endpoint`, {
          url: `https://example.com/${"p".repeat(2048)}`,
        }),
      ),
    ).toContainEqual(["body", "url"]);
    expect(await problems(await api.call("GET", `/api/v1/app/${"a".repeat(300)}`))).toContainEqual([
      "path",
      "app_id",
    ]);
  });
});

it("a header block over HOOKLINE_MAX_HEADER_BYTES is a 431 with a JSON body", async () => {
  const { port } = new URL(api.url);
  const answer = await new Promise<{ status: number; body: string }>((resolve, reject) => {
    const req = request(
      { host: "127.0.0.1", port, path: "/api/v1/app", headers: { "x-big": "b".repeat(8192) } },
      (res) => {
        let body = "";
        res.on("data", (c: Buffer) => (body += c.toString()));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, body }));
      },
    );
    req.on("error", reject);
    req.end();
  });
  expect(answer.status).toBe(431);
  expect(JSON.parse(answer.body)).toMatchObject({ code: "headers_too_large" });
});
