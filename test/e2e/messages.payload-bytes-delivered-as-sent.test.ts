import { Webhook } from "standardwebhooks";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { deliveryOf, startHookline, type TestHookline } from "../support/hookline.js";
import { Receiver } from "../support/receiver.js";

// What JSON.parse then JSON.stringify would change: 64-bit ids rounded, -0, 1e400, key order,
// escapes and the caller's whitespace.
const PAYLOAD =
  '{"id":9007199254740993,"big":12345678901234567890,"z":-0,"b":1,"2":0,' +
  '"inf":1e400,"s":"caf\\u00e9 \\"q\\" ☕",\n  "nested": { "a" : [ 1.50, 2e0 ] }\n}';

describe("a message's payload is delivered and signed as the caller's own bytes", () => {
  let t: TestHookline;
  let rx: Receiver;
  beforeEach(async () => {
    t = await startHookline();
    rx = await Receiver.start();
  });
  afterEach(async () => {
    await t.stop();
    await rx.close();
  });

  it("delivers exactly the bytes posted, the signature verifies over them, and GET answers them", async () => {
    await t.svix.application.create({ name: "Acme", uid: "acme" });
    const ep = await t.svix.endpoint.create("acme", { url: rx.url("/in"), uid: "in" });
    // A duplicate top-level "payload": the last one wins, as JSON.parse resolves it.
    const raw = `{ "payload": {"first":true}, "eventType":"id.big",\n "payload" :  ${PAYLOAD}  \n}`;
    const res = await fetch(`${t.url}/api/v1/app/acme/msg`, {
      method: "POST",
      headers: { authorization: `Bearer ${t.token}`, "content-type": "application/json" },
      body: raw,
    });
    expect(res.status).toBe(202);
    const msg = (await res.json()) as { id: string };

    await t.waitFor(deliveryOf(msg.id, "succeeded", ep.id));
    const req = rx.on("/in")[0]!;
    expect(req.body.toString("utf8")).toBe(PAYLOAD);
    const { key } = await t.svix.endpoint.getSecret("acme", ep.id);
    expect(() =>
      new Webhook(key).verify(req.body.toString("utf8"), {
        "webhook-id": req.headers["webhook-id"]!,
        "webhook-timestamp": req.headers["webhook-timestamp"]!,
        "webhook-signature": req.headers["webhook-signature"]!,
      }),
    ).not.toThrow();

    const got = await fetch(`${t.url}/api/v1/app/acme/msg/${msg.id}`, {
      headers: { authorization: `Bearer ${t.token}` },
    });
    expect(await got.text()).toContain(`"payload":${PAYLOAD}}`);
  });
});
