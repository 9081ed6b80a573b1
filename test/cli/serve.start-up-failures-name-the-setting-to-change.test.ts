/**
 * When `hookline serve` cannot start because of where it was told to listen or keep its data,
 * it says which setting to change, in one line, and exits 1 — not with a Node stack trace that
 * leaves the operator to guess which of the variables was wrong.
 */
import { writeFileSync } from "node:fs";
import { createServer, type Server } from "node:net";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { tempDir, useCleanup } from "../support/cleanup.js";
import { TEST_DATABASE_URL } from "../support/postgres.js";
import { spawnServe, stopAfter, TEST_TOKEN } from "../support/process.js";
import { SilentPostgres } from "../support/silent-postgres.js";
import { within } from "../support/within.js";

const cleanup = useCleanup();
const dataDir = () => tempDir(cleanup, "hookline-start-");

/** Runs `hookline serve` to its end; it must not start, so it ends by itself. */
async function serveUntilExit(
  env: Record<string, string> & { HOOKLINE_DATA_DIR: string },
  args: string[] = [],
): Promise<{ code: number | string; output: string }> {
  const { child, exited, output } = stopAfter(
    cleanup,
    spawnServe(
      env.HOOKLINE_DATA_DIR,
      { HOOKLINE_LOG_LEVEL: "silent", HOOKLINE_SENDER_THREADS: "0", ...env },
      args,
    ),
  );
  // A hookline that did start is stopped, so the assertions below report it.
  child.stdout!.on("data", () => {
    if (/listening on/.test(output())) child.kill("SIGTERM");
  });
  return { code: await exited, output: output() };
}

function expectOneLineNaming(
  result: { code: number | string; output: string },
  setting: string,
  prefix = "hookline:",
) {
  expect(result.code, result.output).toBe(1);
  const line = result.output.trim();
  expect(line).toMatch(new RegExp(`^${prefix} .*${setting}`));
  expect(line).not.toMatch(/\n\s+at /);
}

/** A server listening on a loopback port, closed after the test (if not before). */
async function listening(): Promise<Server> {
  const server = createServer();
  cleanup.push(() => new Promise((r) => server.close(() => r())));
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  return server;
}

const portOf = (server: Server) => (server.address() as { port: number }).port;

describe("hookline serve refuses to start", () => {
  it("on a port another process listens on, naming HOOKLINE_PORT", async () => {
    const port = portOf(await listening());
    const result = await serveUntilExit({
      HOOKLINE_DATA_DIR: dataDir(),
      HOOKLINE_HOST: "127.0.0.1",
      HOOKLINE_PORT: String(port),
    });
    expectOneLineNaming(result, "HOOKLINE_PORT");
    expect(result.output).toContain(`127.0.0.1:${port}`);
  }, 30_000);

  it("on a host that is not an address of this machine, naming HOOKLINE_HOST", async () => {
    // 192.0.2.0/24 is reserved for documentation: no machine has it.
    const result = await serveUntilExit({
      HOOKLINE_DATA_DIR: dataDir(),
      HOOKLINE_HOST: "192.0.2.1",
    });
    expectOneLineNaming(result, "HOOKLINE_HOST");
  }, 30_000);

  it("on a data dir that is a file, naming HOOKLINE_DATA_DIR", async () => {
    const file = join(dataDir(), "not-a-dir");
    writeFileSync(file, "");
    for (const adminToken of [TEST_TOKEN, ""]) {
      const result = await serveUntilExit({
        HOOKLINE_DATA_DIR: file,
        HOOKLINE_ADMIN_TOKEN: adminToken,
      });
      expectOneLineNaming(result, "HOOKLINE_DATA_DIR");
      expect(result.output).toContain(file);
    }
  }, 30_000);

  it("on a PostgreSQL that does not answer, naming DATABASE_URL without its password", async () => {
    const server = await listening();
    const port = portOf(server);
    // Nothing speaks PostgreSQL there: a closed port would do too, but this one is surely free.
    server.close();
    const result = await serveUntilExit({
      HOOKLINE_DATA_DIR: dataDir(),
      DATABASE_URL: `postgres://hookline:s3cret-pw@127.0.0.1:${port}/hookline`,
    });
    expectOneLineNaming(result, "DATABASE_URL");
    expect(result.output).toContain(`127.0.0.1:${port}`);
    expect(result.output).not.toContain("s3cret-pw");
  }, 30_000);

  it("on a PostgreSQL that lets it log in and then answers nothing, naming DATABASE_URL", async () => {
    const server = await SilentPostgres.start();
    cleanup.push(() => server.close());
    const result = await within(
      20_000,
      "hookline serve against a silent PostgreSQL",
      serveUntilExit({
        HOOKLINE_DATA_DIR: dataDir(),
        DATABASE_URL: server.url("s3cret-pw"),
        HOOKLINE_PG_QUERY_TIMEOUT_MS: "1000",
      }),
    );
    expectOneLineNaming(result, "DATABASE_URL");
    expect(result.output).toContain(`127.0.0.1:${server.port}`);
    expect(result.output).toContain("Query read timeout");
    expect(result.output).not.toContain("s3cret-pw");
  }, 30_000);

  it("on a PostgreSQL database that does not exist, naming DATABASE_URL and saying so", async () => {
    const url = new URL(TEST_DATABASE_URL);
    url.pathname = "/hookline_no_such_database";
    const result = await serveUntilExit({
      HOOKLINE_DATA_DIR: dataDir(),
      DATABASE_URL: url.toString(),
    });
    expectOneLineNaming(result, "DATABASE_URL");
    expect(result.output).toContain('database "hookline_no_such_database" does not exist');
  }, 30_000);

  it("with a --role it does not know, naming --role", async () => {
    const result = await serveUntilExit({ HOOKLINE_DATA_DIR: dataDir() }, ["--role", "leader"]);
    // commander's own words for an option's value it refuses.
    expectOneLineNaming(result, "--role", "error:");
    expect(result.output).toContain("all, api, worker");
  }, 30_000);
});
