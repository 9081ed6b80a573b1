/**
 * A DATABASE_URL asking for TLS (`sslmode=require`, as managed PostgreSQL services hand them
 * out) against a server without it, or one whose certificate is not trusted, or naming a CA file
 * (`sslrootcert`) that is not there, fails before hookline has a connection. Start-up said "cannot migrate the PostgreSQL schema", which sent the
 * operator to the schema and its grants; it says it cannot connect.
 */
import { createServer } from "node:net";
import { expect, it } from "vitest";
import { tempDir, useCleanup } from "../support/cleanup.js";
import { spawnServe, stopAfter } from "../support/process.js";

const cleanup = useCleanup();

/** A PostgreSQL server without TLS: it answers a client's TLS request with N. */
async function withoutTls(): Promise<number> {
  const server = createServer((socket) => {
    socket.on("error", () => socket.destroy());
    socket.once("data", () => socket.end("N"));
  });
  cleanup.push(() => new Promise((r) => server.close(() => r())));
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  return (server.address() as { port: number }).port;
}

/** What `hookline serve` printed, having stopped by itself, given DATABASE_URL's query. */
async function failedStart(port: number, query: string): Promise<string> {
  const { exited, output } = stopAfter(
    cleanup,
    spawnServe(tempDir(cleanup, "hookline-start-"), {
      DATABASE_URL: `postgres://hookline:s3cret-pw@127.0.0.1:${port}/hookline?${query}`,
      HOOKLINE_LOG_LEVEL: "silent",
      HOOKLINE_SENDER_THREADS: "0",
    }),
  );
  expect(await exited, output()).toBe(1);
  return output().trim();
}

it("says it cannot connect when the server refuses the TLS the URL asks for", async () => {
  const port = await withoutTls();
  expect(await failedStart(port, "sslmode=verify-full")).toBe(
    `hookline: cannot use PostgreSQL at postgres://hookline@127.0.0.1:${port}/hookline (DATABASE_URL): cannot connect: The server does not support SSL connections`,
  );
}, 30_000);

it("says it cannot connect when the URL names a CA file that is not there", async () => {
  const port = await withoutTls();
  const ca = `${tempDir(cleanup, "hookline-ca-")}/ca.pem`;
  expect(await failedStart(port, `sslmode=verify-full&sslrootcert=${ca}`)).toBe(
    `hookline: cannot use PostgreSQL at postgres://hookline@127.0.0.1:${port}/hookline (DATABASE_URL): cannot connect: ENOENT: no such file or directory, open '${ca}'`,
  );
}, 30_000);
