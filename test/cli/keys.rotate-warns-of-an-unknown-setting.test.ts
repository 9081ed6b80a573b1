/**
 * `hookline keys rotate` reads the same settings as serve, and warns as serve does of a HOOKLINE_*
 * variable that is none. It said nothing: with HOOKLINE_ENCRYPTION_OLD_KEY for …_OLD_KEYS, the
 * operator was told the old key "is not configured" while looking at the line that set it.
 */
import { randomBytes } from "node:crypto";
import { join } from "node:path";
import { PassThrough } from "node:stream";
import { expect, it } from "vitest";
import { keysCommand } from "../../src/cli/keys.js";
import { FieldCipher } from "../../src/security/cipher.js";
import { SqliteStore } from "../../src/store/sqlite/store.js";
import { anApplication, anEndpoint } from "../store/behaviour/fixtures.js";
import { tempDir, useCleanup } from "../support/cleanup.js";

const cleanup = useCleanup();

it("names the misspelt setting before the failure it leads to", async () => {
  const dir = tempDir(cleanup, "hookline-keys-");
  const old = randomBytes(32);
  const store = new SqliteStore({
    path: join(dir, "hookline.db"),
    synchronous: "normal",
    cipher: new FieldCipher(old),
  });
  const app = await store.createApplication(anApplication());
  await store.createEndpoint(anEndpoint(app.id));
  await store.close();

  const out = new PassThrough();
  let printed = "";
  out.on("data", (c: Buffer) => (printed += c.toString()));
  const env = {
    HOOKLINE_DATA_DIR: dir,
    HOOKLINE_ENCRYPTION_KEY: randomBytes(32).toString("base64"),
    HOOKLINE_ENCRYPTION_OLD_KEY: old.toString("base64"),
  };
  await expect(keysCommand(env, out).parseAsync(["rotate"], { from: "user" })).rejects.toThrow(
    /not configured/,
  );
  expect(printed).toContain(
    "WARNING: HOOKLINE_ENCRYPTION_OLD_KEY is not a hookline setting (did you mean HOOKLINE_ENCRYPTION_OLD_KEYS?); it is ignored\n",
  );
});
