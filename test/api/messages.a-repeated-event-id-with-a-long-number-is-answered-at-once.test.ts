/**
 * docs/delivery.md: a post repeating an `eventId` is compared with the message it names, numbers
 * by their exact value. Finding a number's trailing zeros took time growing with the square of
 * its length: a payload holding one long number with a run of zeros inside (well within the body
 * limit) held the whole server for seconds, or minutes nearer the limit, on a retry that merely
 * spaced its JSON differently. The comparison is now linear in the payload's length.
 */
import { afterAll, beforeAll, expect, it } from "vitest";
import { startApi, type ApiHarness } from "./harness.js";

let api: ApiHarness;
let appId: string;
beforeAll(async () => {
  api = await startApi();
  appId = (await api.svix.application.create({ name: "Long numbers" })).id;
  await api.svix.endpoint.create(appId, { url: "https://example.com/hook" });
});
afterAll(async () => api.close());

/** Posts `payload`, written as given, under `eventId`; the status and how long it took, ms. */
async function post(eventId: string, payload: string): Promise<[number, number]> {
  const body = `{"eventType": "order.placed", "eventId": "${eventId}", "payload": ${payload}}`;
  const started = performance.now();
  const res = await api.call("POST", `/api/v1/app/${appId}/msg`, body);
  await res.arrayBuffer();
  return [res.status, performance.now() - started];
}

it("answers a repeat of a payload with a long run of zeros inside a number at once", async () => {
  // 1, then 200,000 zeros, then 1: the comparison used to take minutes over it.
  const number = `1${"0".repeat(200_000)}1`;
  expect((await post("long-number", `{"v":${number}}`))[0]).toBe(202);
  const [status, took] = await post("long-number", `{ "v": ${number} }`);
  expect(status).toBe(200);
  // Linear, it takes milliseconds; a generous bound for a busy machine.
  expect(took).toBeLessThan(3_000);
}, 10_000);

it("still tells two such numbers apart by their last digit", async () => {
  const zeros = "0".repeat(200_000);
  expect((await post("long-number-2", `{"v":1${zeros}1}`))[0]).toBe(202);
  expect((await post("long-number-2", `{"v":1${zeros}2}`))[0]).toBe(409);
}, 10_000);
