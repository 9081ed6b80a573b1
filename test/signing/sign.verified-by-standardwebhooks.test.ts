import fc from "fast-check";
import { Webhook, WebhookVerificationError } from "standardwebhooks";
import { describe, expect, it } from "vitest";
import { generateSecret, parseSecret } from "../../src/signing/secret.js";
import { activeKeys, signatureHeaders } from "../../src/signing/sign.js";

// The standardwebhooks package takes the "whsec_…" string as-is (it strips the prefix and
// base64-decodes the rest), checks the timestamp against the real clock with a 5-minute
// tolerance, and accepts a header if any of its space-separated "v1," signatures matches.

const nowSec = () => Math.floor(Date.now() / 1000);
const body = JSON.stringify({ type: "invoice.paid", data: { id: "inv_123", amount: 4200 } });

describe("hookline's signature headers, checked by the standardwebhooks package", () => {
  it("verify for the endpoint's secret and return the parsed body", () => {
    const secret = generateSecret();
    const headers = signatureHeaders("msg_01", nowSec(), body, [parseSecret(secret)]);
    expect(new Webhook(secret).verify(body, headers)).toEqual(JSON.parse(body));
  });

  it("verify when the body is given as a Buffer", () => {
    const secret = generateSecret();
    const raw = Buffer.from(body, "utf8");
    const headers = signatureHeaders("msg_02", nowSec(), raw, [parseSecret(secret)]);
    expect(new Webhook(secret).verify(raw, headers)).toEqual(JSON.parse(body));
  });

  it("verify for both the new and the old secret during a rotation", () => {
    const oldSecret = generateSecret();
    const newSecret = generateSecret();
    const now = Date.now();
    const keys = activeKeys(
      { current: newSecret, previous: [{ secret: oldSecret, expiresAt: now + 60_000 }] },
      now,
    );
    const headers = signatureHeaders("msg_03", nowSec(), body, keys);
    expect(headers["webhook-signature"].split(" ")).toHaveLength(2);
    expect(() => new Webhook(newSecret).verify(body, headers)).not.toThrow();
    expect(() => new Webhook(oldSecret).verify(body, headers)).not.toThrow();
    expect(() => new Webhook(generateSecret()).verify(body, headers)).toThrow(
      WebhookVerificationError,
    );
  });

  it("stop verifying for the old secret once its grace period has ended", () => {
    const oldSecret = generateSecret();
    const newSecret = generateSecret();
    const now = Date.now();
    const keys = activeKeys(
      { current: newSecret, previous: [{ secret: oldSecret, expiresAt: now }] },
      now,
    );
    const headers = signatureHeaders("msg_04", nowSec(), body, keys);
    expect(() => new Webhook(newSecret).verify(body, headers)).not.toThrow();
    expect(() => new Webhook(oldSecret).verify(body, headers)).toThrow(WebhookVerificationError);
  });

  it("fail when the body, id or timestamp has been tampered with", () => {
    const secret = generateSecret();
    const ts = nowSec();
    const headers = signatureHeaders("msg_05", ts, body, [parseSecret(secret)]);
    const wh = new Webhook(secret);
    const tamperedBody = body.replace("4200", "4201");
    expect(() => wh.verify(tamperedBody, headers)).toThrow(WebhookVerificationError);
    expect(() => wh.verify(body, { ...headers, "webhook-id": "msg_06" })).toThrow(
      WebhookVerificationError,
    );
    expect(() => wh.verify(body, { ...headers, "webhook-timestamp": String(ts - 1) })).toThrow(
      WebhookVerificationError,
    );
  });

  it("verify for any text body and message id", () => {
    fc.assert(
      fc.property(
        fc.string({ unit: "grapheme", maxLength: 200 }),
        fc.stringMatching(/^msg_[A-Za-z0-9]{1,30}$/),
        (text, msgId) => {
          const secret = generateSecret();
          const headers = signatureHeaders(msgId, nowSec(), text, [parseSecret(secret)]);
          new Webhook(secret).verify(text, headers, { jsonParse: false });
        },
      ),
      { numRuns: 200 },
    );
  });
});
