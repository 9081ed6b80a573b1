/**
 * `hookline keys rotate` opens the store itself: a data dir that cannot hold the SQLite file, or a
 * PostgreSQL that does not answer, is reported naming the setting to change (and never the
 * database password), as `hookline serve` does.
 */
import { writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { join } from "node:path";
import { PassThrough } from "node:stream";
import { expect, it } from "vitest";
import { keysCommand } from "../../src/cli/keys.js";
import { tempDir, useCleanup } from "../support/cleanup.js";

const cleanup = useCleanup();

function rotate(env: Record<string, string>): Promise<unknown> {
  return keysCommand(env, new PassThrough()).parseAsync(["rotate"], { from: "user" });
}

it("names HOOKLINE_DATA_DIR when the data dir is a file", async () => {
  const file = join(tempDir(cleanup, "hookline-keys-"), "not-a-dir");
  writeFileSync(file, "");
  await expect(rotate({ HOOKLINE_DATA_DIR: join(file, "data") })).rejects.toThrow(
    `HOOKLINE_DATA_DIR ${join(file, "data")} cannot be used: a part of the path is a file, not a directory`,
  );
});

it("names DATABASE_URL, without its password, when PostgreSQL does not answer", async () => {
  const server = createServer();
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const { port } = server.address() as { port: number };
  await new Promise((r) => server.close(r));
  const err = await rotate({
    DATABASE_URL: `postgres://hookline:s3cret-pw@127.0.0.1:${port}/hookline`,
  }).catch((e: unknown) => e as Error);
  expect(err).toBeInstanceOf(Error);
  expect((err as Error).message).toContain(`127.0.0.1:${port}/hookline (DATABASE_URL)`);
  expect((err as Error).message).not.toContain("s3cret-pw");
});
