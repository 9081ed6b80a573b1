/**
 * `hookline keys rotate` ends by saying what is now true. Run to encrypt a store written in
 * plaintext (security.md, "Turning it on later"), there are no old keys: it told the operator
 * "the old keys may now be removed from HOOKLINE_ENCRYPTION_OLD_KEYS", a setting they never set.
 */
import { randomBytes } from "node:crypto";
import { join } from "node:path";
import { PassThrough } from "node:stream";
import { expect, it } from "vitest";
import { keysCommand } from "../../src/cli/keys.js";
import { keyId } from "../../src/security/cipher.js";
import { SqliteStore } from "../../src/store/sqlite/store.js";
import { tempDir, useCleanup } from "../support/cleanup.js";

const cleanup = useCleanup();

/** Runs `hookline keys rotate` on the store in `dir`; resolves with what it printed. */
async function rotate(dir: string, env: Record<string, string>): Promise<string> {
  const out = new PassThrough();
  let printed = "";
  out.on("data", (c: Buffer) => (printed += c.toString()));
  await keysCommand({ HOOKLINE_DATA_DIR: dir, ...env }, out).parseAsync(["rotate"], {
    from: "user",
  });
  return printed;
}

it("says every value is sealed with the key, naming no old keys, when none are set", async () => {
  const dir = tempDir(cleanup, "hookline-keys-");
  await new SqliteStore({ path: join(dir, "hookline.db"), synchronous: "normal" }).close();
  const key = randomBytes(32);
  const first = await rotate(dir, { HOOKLINE_ENCRYPTION_KEY: key.toString("base64") });
  expect(first).toContain(`done: every stored value is sealed with key ${keyId(key)}\n`);
  expect(first).not.toContain("HOOKLINE_ENCRYPTION_OLD_KEYS");

  // With the old key listed, that it may go is what there is to say.
  const next = randomBytes(32);
  const second = await rotate(dir, {
    HOOKLINE_ENCRYPTION_KEY: next.toString("base64"),
    HOOKLINE_ENCRYPTION_OLD_KEYS: key.toString("base64"),
  });
  expect(second).toContain(
    "done: the old keys may now be removed from HOOKLINE_ENCRYPTION_OLD_KEYS",
  );
});
