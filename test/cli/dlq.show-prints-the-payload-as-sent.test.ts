/**
 * `hookline dlq show` is how an operator looks at a payload the receiver refused (runbook, step
 * 2: "the receiver rejects this payload"). The API answers the record's payload as the caller's
 * own bytes, but the command parsed the answer and printed it again, so it showed integers above
 * 2^53 rounded, 1e400 as null and -0 as 0: not what the receiver was sent, and for a receiver
 * refusing exactly such a value, a payload that looks fine. `--json` did the same to the API's
 * answer it says it prints.
 */
import { afterAll, beforeAll, expect, it } from "vitest";
import { anEndpoint } from "../support/dlq.js";
import { runDlq } from "../support/fake-api.js";
import { deliveryOf, startHookline, type TestHookline } from "../support/hookline.js";
import { Receiver } from "../support/receiver.js";

const PAYLOAD =
  '{"id":9007199254740993,"inf":1e400,"z":-0,"x":1.50,\n  "s":"caf\\u00e9 \\u001b[2J"}';

let h: TestHookline;
let rx: Receiver;
let recordId: string;
beforeAll(async () => {
  h = await startHookline();
  // A 400 is permanent: the first attempt dead-letters the message.
  rx = await Receiver.start(() => ({ status: 400, body: "bad id" }));
  const ep = await anEndpoint(h, rx.url("/in"));
  const res = await fetch(`${h.url}/api/v1/app/${ep.appId}/msg`, {
    method: "POST",
    headers: { authorization: `Bearer ${h.token}`, "content-type": "application/json" },
    body: `{"eventType":"invoice.failed","payload":${PAYLOAD}}`,
  });
  expect(res.status).toBe(202);
  const { id } = (await res.json()) as { id: string };
  await h.waitFor(deliveryOf(id, "dead", ep.endpointId));
  const list = await h.api<{ data: { id: string }[] }>(
    "GET",
    `/api/v1/dlq?endpoint_id=${ep.endpointId}`,
  );
  recordId = list.body.data[0]!.id;
});
afterAll(async () => {
  await h.stop();
  await rx.close();
});

it("prints the record's payload as the caller sent it", async () => {
  expect(rx.on("/in")[0]!.body.toString("utf8")).toBe(PAYLOAD);
  const out = await runDlq(h.url, ["show", recordId], Date.now(), h.token);
  expect(out).toContain(`payload\n${PAYLOAD}\n`);
});

it("with --json, prints the API's answer as it came", async () => {
  const out = await runDlq(h.url, ["show", recordId, "--json"], Date.now(), h.token);
  const api = await fetch(`${h.url}/api/v1/dlq/${recordId}`, {
    headers: { authorization: `Bearer ${h.token}` },
  });
  const answer = await api.text();
  expect(answer).toContain(`"payload":${PAYLOAD}}`);
  expect(out).toBe(`${answer}\n`);
});
