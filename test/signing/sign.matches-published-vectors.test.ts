import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { parseSecret } from "../../src/signing/secret.js";
import { signatureHeaders, signPayload } from "../../src/signing/sign.js";

interface HmacVector {
  secret: string;
  id: string;
  timestamp: number;
  body: string;
  signature: string;
}

interface Vectors {
  hmac: HmacVector[];
  nonMatching: string;
}

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..");
const vectorsPath = path.resolve(repoRoot, "..", "shared", "vectors", "standard-webhooks.json");

function loadVectors(): Vectors {
  if (!existsSync(vectorsPath)) {
    throw new Error(
      `Standard Webhooks test vectors not found at ${vectorsPath}; ` +
        "this test needs the shared vectors file beside the repository.",
    );
  }
  const parsed = JSON.parse(readFileSync(vectorsPath, "utf8")) as Partial<Vectors>;
  if (!Array.isArray(parsed.hmac) || parsed.hmac.length === 0) {
    throw new Error(`${vectorsPath} has no "hmac" vectors`);
  }
  if (typeof parsed.nonMatching !== "string") {
    throw new Error(`${vectorsPath} has no "nonMatching" signature`);
  }
  return { hmac: parsed.hmac, nonMatching: parsed.nonMatching };
}

const vectors = loadVectors();
const first = vectors.hmac[0]!;

function sign(v: HmacVector, body: Buffer | string = v.body, keys = [parseSecret(v.secret)]) {
  return signPayload({ msgId: v.id, timestamp: v.timestamp, body, keys });
}

describe("signPayload against the published Standard Webhooks vectors", () => {
  it.each(vectors.hmac.map((v) => [v.id, v] as const))(
    "reproduces the signature of %s exactly",
    (_id, v) => {
      expect(sign(v)).toBe(v.signature);
    },
  );

  it.each(vectors.hmac.map((v) => [v.id, v] as const))(
    "signs a Buffer body of %s the same as its string form",
    (_id, v) => {
      expect(sign(v, Buffer.from(v.body, "utf8"))).toBe(v.signature);
    },
  );

  it("never produces the published non-matching signature", () => {
    for (const v of vectors.hmac) {
      expect(sign(v)).not.toBe(vectors.nonMatching);
    }
  });

  it("does not reproduce a vector when the body, id or timestamp changes", () => {
    const key = [parseSecret(first.secret)];
    expect(sign(first, `${first.body} `)).not.toBe(first.signature);
    expect(signPayload({ ...first, msgId: `${first.id}x`, keys: key })).not.toBe(first.signature);
    expect(
      signPayload({ ...first, msgId: first.id, timestamp: first.timestamp + 1, keys: key }),
    ).not.toBe(first.signature);
  });

  it("lists one signature per key, in the order given", () => {
    const other = vectors.hmac[1] ?? first;
    const keys = [parseSecret(first.secret), parseSecret(other.secret)];
    const parts = sign(first, first.body, keys).split(" ");
    expect(parts).toHaveLength(2);
    expect(parts[0]).toBe(first.signature);
    expect(parts[1]).toBe(sign(first, first.body, [keys[1]!]));
    expect(parts).not.toContain(vectors.nonMatching);
  });

  it("puts the same signature in signatureHeaders", () => {
    const headers = signatureHeaders(first.id, first.timestamp, first.body, [
      parseSecret(first.secret),
    ]);
    expect(headers).toEqual({
      "webhook-id": first.id,
      "webhook-timestamp": String(first.timestamp),
      "webhook-signature": first.signature,
    });
  });

  it("refuses to sign without a key or with a fractional timestamp", () => {
    expect(() => sign(first, first.body, [])).toThrow(/at least one key/);
    expect(() =>
      signPayload({ msgId: first.id, timestamp: 1.5, body: "", keys: [parseSecret(first.secret)] }),
    ).toThrow(RangeError);
  });
});
