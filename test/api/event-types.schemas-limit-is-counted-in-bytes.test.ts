/**
 * docs/security.md bounds an event type's `schemas` at 256 KiB of JSON. KiB are bytes: a schema
 * whose JSON is larger than that in UTF-8 is refused (422 naming `schemas`) however few UTF-16
 * code units it takes, and one just under it is kept.
 */
import { afterAll, beforeAll, expect, it } from "vitest";
import { startApi, type ApiHarness } from "./harness.js";

let api: ApiHarness;
beforeAll(async () => {
  api = await startApi();
});
afterAll(async () => api.close());

const LIMIT = 256 * 1024;

it("refuses schemas over 256 KiB of UTF-8 JSON written in characters of three bytes", async () => {
  // 100,000 euro signs: 100,000 UTF-16 code units, 300,000 bytes of UTF-8.
  const schemas = { "1": { description: "€".repeat(100_000) } };
  expect(Buffer.byteLength(JSON.stringify(schemas))).toBeGreaterThan(LIMIT);
  const res = await api.call("POST", "/api/v1/event-type", {
    name: "wide.schema",
    description: "too big",
    schemas,
  });
  expect(res.status).toBe(422);
  const body = (await res.json()) as { detail: { loc: unknown[] }[] };
  expect(body.detail.map((p) => p.loc)).toContainEqual(["body", "schemas"]);
  expect((await api.call("GET", "/api/v1/event-type/wide.schema")).status).toBe(404);
});

it("keeps ASCII schemas just under the limit", async () => {
  const schemas = { "1": { description: "a".repeat(LIMIT - 100) } };
  const res = await api.call("POST", "/api/v1/event-type", {
    name: "narrow.schema",
    description: "fits",
    schemas,
  });
  expect(res.status).toBe(201);
});
