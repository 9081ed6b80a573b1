import { describe, expect, it } from "vitest";
import { ValidationError } from "../../src/errors.js";
import { generateSecret, isValidSecret, parseSecret } from "../../src/signing/secret.js";

const b64 = (n: number, fill = 7) => Buffer.alloc(n, fill).toString("base64");

describe("generateSecret", () => {
  it('is "whsec_" followed by base64 of 24 bytes', () => {
    const secret = generateSecret();
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{32}$/);
    expect(Buffer.from(secret.slice("whsec_".length), "base64")).toHaveLength(24);
  });

  it("differs on every call", () => {
    const seen = new Set(Array.from({ length: 100 }, () => generateSecret()));
    expect(seen.size).toBe(100);
  });
});

describe("parseSecret", () => {
  it("returns the 24 key bytes of a generated secret and round-trips", () => {
    for (let i = 0; i < 20; i++) {
      const secret = generateSecret();
      const key = parseSecret(secret);
      expect(key).toHaveLength(24);
      expect(`whsec_${key.toString("base64")}`).toBe(secret);
      expect(isValidSecret(secret)).toBe(true);
    }
  });

  it("accepts keys from 24 to 64 bytes", () => {
    for (const n of [24, 32, 33, 64]) {
      expect(parseSecret(`whsec_${b64(n)}`)).toEqual(Buffer.alloc(n, 7));
    }
  });

  it.each([
    ["empty", ""],
    ["prefix only", "whsec_"],
    ["no prefix", b64(24)],
    ["wrong prefix", `whsk_${b64(24)}`],
    ["upper-case prefix", `WHSEC_${b64(24)}`],
    ["key too short (23 bytes)", `whsec_${b64(23)}`],
    ["key too long (65 bytes)", `whsec_${b64(65)}`],
    ["not base64", "whsec_!!!!notbase64!!!!notbase64!!!!"],
    ["url-safe alphabet", `whsec_${Buffer.alloc(24, 0xfb).toString("base64url")}`],
    ["missing padding", `whsec_${b64(25).replace(/=+$/, "")}`],
    ["embedded whitespace", `whsec_${b64(24).slice(0, 16)} ${b64(24).slice(16)}`],
    ["trailing newline", `whsec_${b64(24)}\n`],
    ["non-canonical final character", `whsec_${b64(25, 0).replace(/A==$/, "B==")}`],
  ])("rejects %s with a ValidationError on body.secret", (_label, secret) => {
    expect(isValidSecret(secret)).toBe(false);
    let thrown: unknown;
    try {
      parseSecret(secret);
    } catch (err) {
      thrown = err;
    }
    expect(thrown).toBeInstanceOf(ValidationError);
    const problems = (thrown as ValidationError).problems;
    expect(problems).toHaveLength(1);
    expect(problems[0]?.loc).toEqual(["body", "secret"]);
    expect(problems[0]?.msg).toBeTruthy();
    expect(problems[0]?.type).toBe("secret_format");
  });

  it("isValidSecret rejects values that are not strings", () => {
    for (const v of [undefined, null, 42, {}, Buffer.alloc(24)]) {
      expect(isValidSecret(v)).toBe(false);
    }
  });
});
