import { readFileSync } from "node:fs";
import { Webhook } from "standardwebhooks";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { generateSecret } from "../../src/signing/secret.js";
import { reached, startEngine, type EngineHarness } from "../support/engine.js";
import { Receiver } from "../support/receiver.js";

describe("a delivered message is signed per Standard Webhooks", () => {
  let h: EngineHarness;
  let rx: Receiver;
  beforeEach(async () => {
    h = await startEngine();
    rx = await Receiver.start();
  });
  afterEach(async () => {
    await h.close();
    await rx.close();
  });

  it("arrives with the stored bytes, webhook-id = message id, and a signature the reference library verifies", async () => {
    const ep = await h.addEndpoint(rx.url("/hook"));
    const payload = { amount: 1250, note: "héllo ✓", nested: { ok: true } };
    const msgId = await h.post(payload);
    await h.waitFor(reached(msgId, "succeeded"));
    const req = rx.requests[0]!;
    expect(req.headers["webhook-id"]).toBe(msgId);
    expect(req.headers["content-type"]).toBe("application/json");
    expect(req.body.equals(Buffer.from(JSON.stringify(payload)))).toBe(true);
    const verified = new Webhook(ep.secrets.current).verify(req.body.toString(), {
      "webhook-id": req.headers["webhook-id"]!,
      "webhook-timestamp": req.headers["webhook-timestamp"]!,
      "webhook-signature": req.headers["webhook-signature"]!,
    });
    expect(verified).toEqual(payload);
  });

  it("carries the endpoint's own headers beside hookline's, which they cannot replace", async () => {
    await h.addEndpoint(rx.url("/hook"), undefined, {
      headers: { "x-tenant": "acme", "content-type": "text/plain", "webhook-id": "forged" },
    });
    const msgId = await h.post({ custom: true });
    await h.waitFor(reached(msgId, "succeeded"));
    const req = rx.requests[0]!;
    expect(req.headers["x-tenant"]).toBe("acme");
    expect(req.headers["content-type"]).toBe("application/json");
    expect(req.headers["webhook-id"]).toBe(msgId);
    // The user-agent names the running version, as delivery.md says, and follows a version bump.
    const pkg = JSON.parse(readFileSync("package.json", "utf8")) as { version: string };
    expect(req.headers["user-agent"]).toBe(`hookline/${pkg.version}`);
  });

  it("after a rotation, signs with both secrets until the old one's grace ends", async () => {
    const ep = await h.addEndpoint(rx.url("/hook"));
    const oldSecret = ep.secrets.current;
    const newSecret = generateSecret();
    await h.store.updateEndpoint({
      ...ep,
      secrets: {
        current: newSecret,
        previous: [{ secret: oldSecret, expiresAt: Date.now() + 60_000 }],
      },
    });
    h.engine.invalidateEndpoint(ep.id);
    const msgId = await h.post({ rotated: true });
    await h.waitFor(reached(msgId, "succeeded"));
    const req = rx.requests[0]!;
    const headers = {
      "webhook-id": req.headers["webhook-id"]!,
      "webhook-timestamp": req.headers["webhook-timestamp"]!,
      "webhook-signature": req.headers["webhook-signature"]!,
    };
    expect(headers["webhook-signature"].split(" ")).toHaveLength(2);
    expect(new Webhook(newSecret).verify(req.body.toString(), headers)).toEqual({ rotated: true });
    expect(new Webhook(oldSecret).verify(req.body.toString(), headers)).toEqual({ rotated: true });

    await h.store.updateEndpoint({
      ...ep,
      secrets: { current: newSecret, previous: [{ secret: oldSecret, expiresAt: Date.now() - 1 }] },
    });
    h.engine.invalidateEndpoint(ep.id);
    const later = await h.post({ rotated: "later" });
    await h.waitFor(reached(later, "succeeded"));
    const req2 = rx.requests[1]!;
    const headers2 = {
      "webhook-id": req2.headers["webhook-id"]!,
      "webhook-timestamp": req2.headers["webhook-timestamp"]!,
      "webhook-signature": req2.headers["webhook-signature"]!,
    };
    expect(headers2["webhook-signature"].split(" ")).toHaveLength(1);
    expect(() => new Webhook(oldSecret).verify(req2.body.toString(), headers2)).toThrow();
  });
});
