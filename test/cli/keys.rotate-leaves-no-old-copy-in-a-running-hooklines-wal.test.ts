/**
 * `hookline keys rotate` may run while hookline keeps running on the same SQLite file. The WAL is
 * then not removed when the command ends, and held every page written before the rewrite: the
 * rotation must not leave the old plaintext (or old-key ciphertext) there.
 */
import { randomBytes } from "node:crypto";
import { PassThrough } from "node:stream";
import { expect, it } from "vitest";
import { keysCommand } from "../../src/cli/keys.js";
import { resolveConfig } from "../../src/config.js";
import { openStore } from "../../src/store/factory.js";
import { accept, anApplication, anEndpoint } from "../store/behaviour/fixtures.js";
import { tempDir, useCleanup } from "../support/cleanup.js";
import { rawFiles } from "../support/raw-stores.js";

const cleanup = useCleanup();

it("leaves no plaintext in the files while the hookline that wrote it keeps running", async () => {
  const dir = tempDir(cleanup, "hookline-keys-");
  // The running hookline's store, as `hookline serve` opens it (checkpoint thread included).
  const running = openStore(resolveConfig({ HOOKLINE_DATA_DIR: dir }));
  cleanup.push(() => running.close());
  const app = await running.createApplication(anApplication());
  await running.createEndpoint(
    anEndpoint(app.id, { secrets: { current: "whsec_plain-secret-ef56", previous: [] } }),
  );
  for (let i = 0; i < 20; i++)
    await accept(running, app.id, { payload: Buffer.from('{"plain-payload-gh78":1}') });
  expect(rawFiles(dir)).toContain("plain-payload-gh78");

  const env = { HOOKLINE_DATA_DIR: dir, HOOKLINE_ENCRYPTION_KEY: randomBytes(32).toString("hex") };
  await keysCommand(env, new PassThrough()).parseAsync(["rotate"], { from: "user" });

  const raw = rawFiles(dir);
  expect(raw).not.toContain("plain-payload-gh78");
  expect(raw).not.toContain("whsec_plain-secret-ef56");
});
