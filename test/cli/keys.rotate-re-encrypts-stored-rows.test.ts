import { randomBytes } from "node:crypto";
import { join } from "node:path";
import { PassThrough } from "node:stream";
import { expect, it } from "vitest";
import { keysCommand } from "../../src/cli/keys.js";
import { FieldCipher } from "../../src/security/cipher.js";
import { SqliteStore } from "../../src/store/sqlite/store.js";
import { accept, anApplication, anEndpoint } from "../store/behaviour/fixtures.js";
import { tempDir, useCleanup } from "../support/cleanup.js";
import { rawFiles } from "../support/raw-stores.js";

const cleanup = useCleanup();

it("`hookline keys rotate` re-encrypts rows written in plaintext and says what it did", async () => {
  const dir = tempDir(cleanup, "hookline-keys-");
  const store = new SqliteStore({ path: join(dir, "hookline.db"), synchronous: "normal" });
  const app = await store.createApplication(anApplication());
  await store.createEndpoint(
    anEndpoint(app.id, { secrets: { current: "whsec_plain-secret-ab12", previous: [] } }),
  );
  for (let i = 0; i < 3; i++)
    await accept(store, app.id, { payload: Buffer.from('{"plain-payload-cd34":1}') });
  await store.close();
  expect(rawFiles(dir)).toContain("plain-payload-cd34");

  const key = randomBytes(32);
  const out = new PassThrough();
  let printed = "";
  out.on("data", (c: Buffer) => (printed += c.toString()));
  const env = { HOOKLINE_DATA_DIR: dir, HOOKLINE_ENCRYPTION_KEY: key.toString("base64") };
  await keysCommand(env, out).parseAsync(["rotate", "--batch-size", "2"], { from: "user" });

  expect(printed).toContain("endpoints: 1 rewritten of 1");
  expect(printed).toContain("messages: 3 rewritten of 3");
  const raw = rawFiles(dir);
  expect(raw).not.toContain("plain-payload-cd34");
  expect(raw).not.toContain("whsec_plain-secret-ab12");
  const reopened = new SqliteStore({
    path: join(dir, "hookline.db"),
    synchronous: "normal",
    cipher: new FieldCipher(key),
  });
  const [ep] = (await reopened.listEndpoints(app.id, { limit: 5 })).data;
  expect(ep?.secrets.current).toBe("whsec_plain-secret-ab12");
  await reopened.close();
});
