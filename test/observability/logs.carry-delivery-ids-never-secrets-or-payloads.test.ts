/**
 * hookline's JSON logs during real deliveries (a retry, a success, a dead letter, a replay):
 * every line about a delivery names its message, delivery and endpoint; no line holds a signing
 * secret, a payload, a custom header's value or the endpoint's URL.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { anEndpoint, post } from "../support/dlq.js";
import { deliveryOf, startHookline, type TestHookline } from "../support/hookline.js";
import { loggerToLines } from "../support/log-lines.js";
import { Receiver } from "../support/receiver.js";

const { logger, lines } = loggerToLines({ level: "debug" });

let h: TestHookline;
let rx: Receiver;
let calls = 0;
beforeAll(async () => {
  h = await startHookline({ overrides: { logger } });
  rx = await Receiver.start((req) => {
    if (req.path === "/dead") return { status: 500 };
    return { status: calls++ === 0 ? 503 : 200 };
  });
});
afterAll(async () => {
  await h.stop();
  await rx.close();
});

describe("delivery logs", () => {
  it("carry ids and never secrets, payloads, header values or URLs", async () => {
    const quick = { retry: { delays: [0], jitter: { strategy: "none" as const } } };
    const ok = await anEndpoint(h, `${rx.url("/ok")}?token=url-token-123`, quick);
    await h.api("PUT", `/api/v1/app/${ok.appId}/endpoint/${ok.endpointId}/headers`, {
      headers: { authorization: "Bearer header-secret-456" },
    });
    const dead = await anEndpoint(h, rx.url("/dead"), quick);
    const m1 = await post(h, ok.appId, { card: "PAYLOAD-MARKER-4711" });
    const m2 = await post(h, dead.appId, { card: "PAYLOAD-MARKER-4711" });
    await h.waitFor(deliveryOf(m1, "succeeded"));
    await h.waitFor(deliveryOf(m2, "dead"));
    const list = await h.api<{ data: { id: string }[] }>("GET", "/api/v1/dlq");
    await h.api("POST", `/api/v1/dlq/${list.body.data[0]!.id}/replay`, {});
    await h.hookline.observability.operational.idle();

    const parsed = lines.map((l) => JSON.parse(l) as Record<string, unknown>);
    const about = parsed.filter((l) => typeof l.deliveryId === "string");
    // Retry scheduled, succeeded, given up, the replay: at least one line each.
    const messages = new Set(about.map((l) => l.msg));
    for (const m of [
      "attempt failed; retry scheduled",
      "delivery succeeded",
      "delivery given up",
    ]) {
      expect(messages, m).toContain(m);
    }
    for (const l of about) {
      expect(l).toMatchObject({
        messageId: expect.stringMatching(/^msg_/),
        deliveryId: expect.stringMatching(/^dlv_/),
        endpointId: expect.stringMatching(/^ep_/),
      });
    }
    const all = lines.join("\n");
    for (const secret of [ok.secret, dead.secret]) expect(all).not.toContain(secret);
    expect(all).not.toContain("whsec_");
    expect(all).not.toContain("PAYLOAD-MARKER-4711");
    expect(all).not.toContain("header-secret-456");
    expect(all).not.toContain("url-token-123");
  });
});
