/**
 * docs/delivery.md: a post repeating an `eventId` with another payload is refused (409), and a
 * payload's large integers and `1e400` reach the receiver as sent. The comparison read both
 * payloads as JavaScript numbers, so two that differed only past a double's precision (ids above
 * 2^53, 1e400 against 2e400) counted as the same: the second post was answered 200 and its
 * payload dropped. Numbers are now compared by their exact value, so 1.0 and 1 still agree.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startApi, type ApiHarness } from "./harness.js";

let api: ApiHarness;
let appId: string;
beforeAll(async () => {
  api = await startApi();
  appId = (await api.svix.application.create({ name: "Exact numbers" })).id;
  await api.svix.endpoint.create(appId, { url: "https://example.com/hook" });
});
afterAll(async () => api.close());

let posted = 0;

/** Posts `payload`, written as given, under `eventId`; the status it was answered with. */
async function post(eventId: string, payload: string): Promise<number> {
  const body = `{"eventType": "order.placed", "eventId": "${eventId}", "payload": ${payload}}`;
  const res = await api.call("POST", `/api/v1/app/${appId}/msg`, body);
  await res.arrayBuffer();
  return res.status;
}

describe("a repeated eventId whose payload has numbers", () => {
  it.each([
    ["an id past 2^53", '{"id": 12345678901234567890}', '{"id": 12345678901234567891}'],
    ["1e400 against 2e400", '{"v": 1e400}', '{"v": 2e400}'],
    ["a fraction past a double's digits", '{"v": 0.10000000000000000001}', '{"v": 0.1}'],
    ["-0 against 0", '{"v": -0}', '{"v": 0}'],
    ["a number against its digits as a string", '{"v": 12}', '{"v": "12"}'],
  ])("is refused when it differs: %s", async (_, first, second) => {
    const eventId = `differs-${++posted}`;
    expect(await post(eventId, first)).toBe(202);
    expect(await post(eventId, second)).toBe(409);
  });

  it.each([
    ["1.0 and 1, 1e2 and 100", '{"a": 1.0, "b": 1e2}', '{"b": 100, "a": 1}'],
    ["the same large id", '{"id": 12345678901234567890}', '{ "id" : 12345678901234567890 }'],
    ["trailing zeros and exponents", '{"v": [1.50, 0.0025]}', '{"v": [15e-1, 25E-4]}'],
    ["short numbers written apart", '{"v": [1.5, 0.25, -3]}', '{ "v":[1.50,0.250,-3.0] }'],
    ["strings holding quotes and escapes", '{"s": "a\\"1\\\\"}', '{"s": "a\\u00221\\\\"}'],
  ])("is the same message when only the writing differs: %s", async (_, first, second) => {
    const eventId = `same-${++posted}`;
    expect(await post(eventId, first)).toBe(202);
    expect(await post(eventId, second)).toBe(200);
  });
});
