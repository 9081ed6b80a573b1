import { randomBytes } from "node:crypto";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { ConfigError } from "../../src/errors.js";
import { FieldCipher, keyId, parseKey, sealedKeyId } from "../../src/security/cipher.js";

const keyA = randomBytes(32);
const keyB = randomBytes(32);

describe("the at-rest cipher", () => {
  it("opens what it sealed, text and bytes, with a fresh nonce each time", () => {
    const c = new FieldCipher(keyA);
    fc.assert(
      fc.property(fc.string({ unit: "binary" }), fc.uint8Array(), (text, bytes) => {
        const sealedText = c.sealText(text);
        expect(c.openText(sealedText)).toBe(text);
        expect(c.openBytes(c.sealBytes(Buffer.from(bytes)))).toEqual(Buffer.from(bytes));
      }),
    );
    expect(c.sealText("same")).not.toBe(c.sealText("same"));
    expect(sealedKeyId(c.sealText("x"))).toBe(keyId(keyA));
  });

  it("passes plaintext through without a key, and reads plaintext written before one", () => {
    const none = new FieldCipher(null);
    expect(none.sealText("whsec_abc")).toBe("whsec_abc");
    expect(new FieldCipher(keyA).openText('{"current":"whsec_abc"}')).toBe(
      '{"current":"whsec_abc"}',
    );
    const json = Buffer.from('{"a":1}');
    expect(new FieldCipher(keyA).openBytes(json)).toEqual(json);
  });

  it("opens with an old key after a rotation, and seals with the new one", () => {
    const before = new FieldCipher(keyA).sealText("secret");
    const after = new FieldCipher(keyB, [keyA]);
    expect(after.openText(before)).toBe("secret");
    expect(after.isCurrent(before)).toBe(false);
    expect(after.isCurrent(after.sealText("secret"))).toBe(true);
  });

  it("refuses a value sealed with a key it does not have, naming the key and the settings", () => {
    const sealed = new FieldCipher(keyA).sealBytes(Buffer.from("{}"));
    for (const reader of [new FieldCipher(keyB), new FieldCipher(null)]) {
      expect(() => reader.openBytes(sealed)).toThrow(ConfigError);
      expect(() => reader.openBytes(sealed)).toThrow(
        new RegExp(`key ${keyId(keyA)}.*HOOKLINE_ENCRYPTION_KEY`),
      );
    }
  });

  it("never returns garbage for a damaged value", () => {
    const c = new FieldCipher(keyA);
    const sealed = c.sealBytes(Buffer.from('{"amount":100}'));
    sealed[sealed.length - 20]! ^= 1;
    expect(() => c.openBytes(sealed)).toThrow(/does not decrypt/);
  });

  it("takes keys as hex or base64 and names the setting when one is wrong", () => {
    expect(parseKey(keyA.toString("hex"), "K")).toEqual(keyA);
    expect(parseKey(keyA.toString("base64"), "K")).toEqual(keyA);
    expect(parseKey(keyA.toString("base64url"), "K")).toEqual(keyA);
    expect(() => parseKey("short", "HOOKLINE_ENCRYPTION_KEY")).toThrow(/HOOKLINE_ENCRYPTION_KEY/);
    expect(() => parseKey(randomBytes(16).toString("hex"), "K")).toThrow(ConfigError);
  });
});
