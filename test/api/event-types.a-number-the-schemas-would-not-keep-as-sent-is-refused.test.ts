/**
 * An event type's `schemas` are kept as JSON read into doubles: a number past a double's range
 * (1e400) came back as null, and one with more digits than a double holds
 * (12345678901234567890123) came back as another number, each behind a 200. Such a number is
 * refused (422 naming where it sits in `schemas`) by create, replace and change alike, and the
 * type is left as it was; numbers a double keeps (0.1, 1.0, 1e2, -0) are taken.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startApi, type ApiHarness } from "./harness.js";

let api: ApiHarness;
beforeAll(async () => {
  api = await startApi();
  const res = await api.call("POST", "/api/v1/event-type", {
    name: "kept.type",
    description: "as it was",
    schemas: { "1": { type: "object" } },
  });
  expect(res.status).toBe(201);
});
afterAll(async () => api.close());

interface Problem {
  loc: (string | number)[];
  msg: string;
}

const LOST = [
  ["1e400", "null"],
  ["-2.5E+999", "null"],
  ["12345678901234567890123", "1.2345678901234568e+22"],
  ["0.10000000000000000001", "0.1"],
  ["1e-400", "0"],
] as const;

describe.each([
  ["POST", "/api/v1/event-type", '"name": "new.type", '],
  ["PUT", "/api/v1/event-type/kept.type", ""],
  ["PATCH", "/api/v1/event-type/kept.type", ""],
] as const)("%s %s", (method, path, name) => {
  it.each(LOST)("refuses %s, which would be kept as %s, naming where it is", async (sent, kept) => {
    const body = `{${name}"description": "d", "schemas": {"1": {"properties": {"n": {"maximum": ${sent}}}}}}`;
    const res = await api.call(method, path, body);
    expect(res.status).toBe(422);
    const { detail } = (await res.json()) as { detail: Problem[] };
    const at = detail.find((p) => p.loc[1] === "schemas");
    expect(at?.loc).toEqual(["body", "schemas", "1", "properties", "n", "maximum"]);
    expect(at?.msg).toContain(sent);
    expect(at?.msg).toContain(kept);

    const stored = await api.call("GET", "/api/v1/event-type/kept.type");
    expect(await stored.json()).toMatchObject({
      description: "as it was",
      schemas: { "1": { type: "object" } },
    });
    expect((await api.call("GET", "/api/v1/event-type/new.type")).status).toBe(404);
  });
});

it("takes numbers a double keeps, however they are written, and answers them", async () => {
  const body =
    '{"description": "d", "schemas": {"1": {"a": 0.1, "b": 1.0, "c": 1e2, "d": -0, "e": 9007199254740991, "f": 1.7976931348623157e308, "g": "1e400"}}}';
  const res = await api.call("PUT", "/api/v1/event-type/fine.type", body);
  expect(res.status).toBe(201);
  const read = await api.call("GET", "/api/v1/event-type/fine.type");
  expect(((await read.json()) as { schemas: unknown }).schemas).toEqual({
    "1": { a: 0.1, b: 1, c: 100, d: 0, e: 9007199254740991, f: 1.7976931348623157e308, g: "1e400" },
  });
});
