/**
 * A rotation of a big store takes minutes, and used to print nothing until its end: one that
 * takes long says where it stands on stderr, every 2 s at most, batch by batch; a short one says
 * nothing there.
 */
import { randomBytes } from "node:crypto";
import { join } from "node:path";
import { PassThrough } from "node:stream";
import { expect, it } from "vitest";
import { keysCommand } from "../../src/cli/keys.js";
import { SqliteStore } from "../../src/store/sqlite/store.js";
import { accept, anApplication, anEndpoint } from "../store/behaviour/fixtures.js";
import { tempDir, useCleanup } from "../support/cleanup.js";

const cleanup = useCleanup();

/** Rotates a store of `messages` plaintext messages, each look at the clock `stepMs` later. */
async function rotateWithClock(messages: number, stepMs: number) {
  const dir = tempDir(cleanup, "hookline-keys-");
  const store = new SqliteStore({ path: join(dir, "hookline.db"), synchronous: "normal" });
  const app = await store.createApplication(anApplication());
  await store.createEndpoint(anEndpoint(app.id));
  for (let i = 0; i < messages; i++) await accept(store, app.id);
  await store.close();
  let out = "";
  let err = "";
  const stdout = new PassThrough().on("data", (c: Buffer) => (out += c.toString()));
  const stderr = new PassThrough().on("data", (c: Buffer) => (err += c.toString()));
  let now = 0;
  const env = { HOOKLINE_DATA_DIR: dir, HOOKLINE_ENCRYPTION_KEY: randomBytes(32).toString("hex") };
  await keysCommand(env, stdout, {
    err: stderr,
    now: () => (now += stepMs),
    onStop: () => () => {},
    setExitCode: () => {},
  }).parseAsync(["rotate", "--batch-size", "100"], { from: "user" });
  return { out, err };
}

it("a rotation whose batches take seconds says how far it is, table by table", async () => {
  const run = await rotateWithClock(250, 3_000);
  const lines = run.err.split("\n");
  expect(lines).toContain("hookline: re-encrypting endpoints: 1 looked at, 1 rewritten");
  expect(lines).toContain("hookline: re-encrypting messages: 100 looked at, 100 rewritten");
  expect(lines).toContain("hookline: re-encrypting messages: 200 looked at, 200 rewritten");
  expect(lines).toContain("hookline: re-encrypting messages: 250 looked at, 250 rewritten");
  expect(run.out).toContain("  messages: 250 rewritten of 250\n");
});

it("a quick rotation says nothing on stderr", async () => {
  const run = await rotateWithClock(10, 1);
  expect(run.err).toBe("");
  expect(run.out).toContain("  messages: 10 rewritten of 10\n");
});
