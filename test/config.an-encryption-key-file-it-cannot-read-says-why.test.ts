/**
 * HOOKLINE_ENCRYPTION_KEY_FILE names a mounted secret, and the usual faults are a path that is
 * not there (the secret not mounted, or mounted elsewhere) and a directory (the mount point, not
 * the file in it). hookline said only that the file "cannot be read", which fits both and sends
 * the operator to check permissions first.
 */
import { randomBytes } from "node:crypto";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { resolveConfig } from "../src/config.js";
import { tempDir, useCleanup } from "./support/cleanup.js";

const cleanup = useCleanup();
const keyFile = (path: string) => () =>
  resolveConfig({ HOOKLINE_ENCRYPTION_KEY_FILE: path }).encryptionKey;

describe("HOOKLINE_ENCRYPTION_KEY_FILE", () => {
  it("says the file is not there", () => {
    const missing = join(tempDir(cleanup, "hookline-key-"), "key");
    expect(keyFile(missing)).toThrow(
      `HOOKLINE_ENCRYPTION_KEY_FILE ${missing} cannot be read: there is no such file`,
    );
  });

  it("says it names a directory, not a file", () => {
    const dir = tempDir(cleanup, "hookline-key-");
    expect(keyFile(dir)).toThrow(
      `HOOKLINE_ENCRYPTION_KEY_FILE ${dir} cannot be read: it is a directory, not a file`,
    );
  });

  it("reads the key from a file with a line break after it", () => {
    const key = randomBytes(32);
    const file = join(tempDir(cleanup, "hookline-key-"), "key");
    writeFileSync(file, `${key.toString("base64")}\n`);
    expect(keyFile(file)()).toEqual(key);
  });
});
