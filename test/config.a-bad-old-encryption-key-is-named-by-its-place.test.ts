/**
 * HOOKLINE_ENCRYPTION_OLD_KEYS is a list: a refusal that named only the variable left the operator
 * to find the bad key by taking them out one at a time. It says which, counted from 1, and never
 * prints a key.
 */
import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { resolveConfig } from "../src/config.js";

const good = () => randomBytes(32).toString("base64");
const oldKeys = (value: string) => () =>
  resolveConfig({ HOOKLINE_ENCRYPTION_OLD_KEYS: value }).encryptionOldKeys;

describe("HOOKLINE_ENCRYPTION_OLD_KEYS", () => {
  it("names the place of the key it refuses among several, and not the key", () => {
    expect(oldKeys(`${good()},zz-not-a-key,${good()}`)).toThrow(
      /^HOOKLINE_ENCRYPTION_OLD_KEYS \(key 2\) must be a 32-byte key/,
    );
    expect(oldKeys(`${good()},zz-not-a-key`)).not.toThrow(/zz-not-a-key/);
  });

  it("names the variable alone when it holds one key", () => {
    expect(oldKeys("zz")).toThrow(/^HOOKLINE_ENCRYPTION_OLD_KEYS must be a 32-byte key/);
  });

  it("takes good keys, skipping empty entries", () => {
    expect(oldKeys(`${good()},, ${good()} `)()).toHaveLength(2);
  });
});
