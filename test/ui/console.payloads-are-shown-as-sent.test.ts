/**
 * The console shows a message's payload, and a dead-letter record's, to an operator working out
 * why a receiver refused it. The page parsed the API's answer and printed the payload again, so it
 * showed integers above 2^53 rounded, 1e400 as null and -0 as 0: not what the receiver was sent.
 * It now shows the caller's own text, indented.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { useDashboard } from "../support/browser.js";
import { anEndpoint } from "../support/dlq.js";
import { deliveryOf } from "../support/hookline.js";

const PAYLOAD =
  '{"id":9007199254740993,"inf":1e400,"z":-0,"x":1.50,\n "s":"caf\\u00e9 \\"q\\" ☕",' +
  '"a":[ ],"o":{"k":[1,{}]}}';
const SHOWN = [
  "{",
  '  "id": 9007199254740993,',
  '  "inf": 1e400,',
  '  "z": -0,',
  '  "x": 1.50,',
  '  "s": "caf\\u00e9 \\"q\\" ☕",',
  '  "a": [],',
  '  "o": {',
  '    "k": [',
  "      1,",
  "      {}",
  "    ]",
  "  }",
  "}",
].join("\n");

describe("operator console: payloads", () => {
  const ui = useDashboard({ receiver: () => ({ status: 400, body: "bad id" }), signedIn: true });
  let appId: string;
  let messageId: string;
  let recordId: string;

  beforeAll(async () => {
    const { h, rx } = ui;
    const ep = await anEndpoint(h, rx.url("/in"));
    appId = ep.appId;
    const res = await fetch(`${h.url}/api/v1/app/${appId}/msg`, {
      method: "POST",
      headers: { authorization: `Bearer ${h.token}`, "content-type": "application/json" },
      body: `{"eventType":"invoice.failed","payload":${PAYLOAD}}`,
    });
    expect(res.status).toBe(202);
    messageId = ((await res.json()) as { id: string }).id;
    await h.waitFor(deliveryOf(messageId, "dead", ep.endpointId));
    const list = await h.api<{ data: { id: string }[] }>(
      "GET",
      `/api/v1/dlq?endpoint_id=${ep.endpointId}`,
    );
    recordId = list.body.data[0]!.id;
  });

  it("a message's page shows its payload as the caller wrote it", async () => {
    const { h, page } = ui;
    await page.goto(`${h.url}/ui/#/app/${appId}/message/${messageId}`);
    expect(await page.locator("pre.payload").first().textContent()).toBe(SHOWN);
  });

  it("a dead-letter record's page shows its payload as the caller wrote it", async () => {
    const { h, page } = ui;
    await page.goto(`${h.url}/ui/#/dlq/${recordId}`);
    // The record's page, not the message's left from the test before (a change of the address's
    // fragment alone): its payload is read only once the record is drawn.
    await page.getByTestId("dlq-state").waitFor();
    expect(await page.locator("pre.payload").first().textContent()).toBe(SHOWN);
  });
});
