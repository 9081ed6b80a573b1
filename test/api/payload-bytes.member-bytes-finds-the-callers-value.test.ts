import { describe, expect, it } from "vitest";
import { memberBytes } from "../../src/api/payload-bytes.js";

const bytes = (json: string): string | undefined =>
  memberBytes(Buffer.from(json, "utf8"), "payload")?.toString("utf8");

describe("memberBytes cuts out a top-level member's value as written", () => {
  it("keeps numbers, key order and inner whitespace; trims only around the value", () => {
    const value = '{"id":9007199254740993, "z":-0,"b":1,"2":0 , "x":1e400}';
    expect(bytes(`{"eventType":"a","payload":  ${value}\n}`)).toBe(value);
  });

  it("skips strings with escaped quotes and backslashes, and keys that only look alike", () => {
    const raw = '{"pay\\"load":{"payload":1},"s":"\\\\","t":"}\\"{","payload":{"k":"a\\\\\\"b}"}}';
    expect(bytes(raw)).toBe('{"k":"a\\\\\\"b}"}');
    expect(JSON.parse(raw)).toHaveProperty("payload.k", 'a\\"b}');
  });

  it("ignores a nested payload key", () => {
    expect(bytes('{"a":{"payload":{"wrong":1}},"payload":{"right":[{"payload":2}]}}')).toBe(
      '{"right":[{"payload":2}]}',
    );
    expect(bytes('{"a":[{"payload":{"wrong":1}}]}')).toBeUndefined();
  });

  it("takes the last of duplicate top-level keys, as JSON.parse does", () => {
    expect(bytes('{"payload":{"a":1},"payload":{"b":2}}')).toBe('{"b":2}');
    expect(bytes('{"payload":{"a":1},"pay\\u006coad":{"b":3}}')).toBe('{"b":3}');
  });

  it("copies unicode as sent, escaped or not, and names other members too", () => {
    const value = '{"é":"☕ \\u2615 😀","\\ud83d\\ude00":true}';
    expect(bytes(`\ufeff {"payload":${value}}`)).toBe(value);
    expect(memberBytes(Buffer.from('{"a":"x","b":[1,2] }'), "b")?.toString()).toBe("[1,2]");
    expect(memberBytes(Buffer.from('{"a":true,"b":null}'), "a")?.toString()).toBe("true");
  });

  it("answers undefined for a body that is not an object or has no such member", () => {
    expect(bytes("[1]")).toBeUndefined();
    expect(bytes("{}")).toBeUndefined();
    expect(bytes('{"payloads":{}}')).toBeUndefined();
  });
});
