/**
 * `hookline --version`, `hookline dlq list` and every command's help loaded the whole server
 * (fastify, both storage drivers, metrics, tracing) before doing anything: about 0.6 s of a
 * start for a command that needs none of it. Each command now loads what it runs. Node names
 * every CommonJS module it loads under NODE_DEBUG=module, and the server's packages are all
 * CommonJS, so what a command loaded is read from there rather than timed.
 */
import { afterAll, beforeAll, expect, it } from "vitest";
import { runCli } from "../support/built-cli.js";
import { startFakeApi, type FakeApi } from "../support/fake-api.js";

/** The packages only serve needs. */
const SERVER_PACKAGES = [
  "fastify",
  "better-sqlite3",
  "pg",
  "prom-client",
  "@opentelemetry",
  "pino",
] as const;

/** The packages under node_modules that `hookline <args>` loaded. */
async function packagesLoadedBy(args: string[], env: Record<string, string> = {}) {
  const run = await runCli(args, { ...env, NODE_DEBUG: "module" });
  expect(run.code, run.err).toBe(0);
  return {
    out: run.out,
    packages: new Set(
      [...run.err.matchAll(/node_modules\/((?:@[^/]+\/)?[^/]+)/g)].map(
        ([, name]) => name!.split("/")[0]!,
      ),
    ),
  };
}

let api: FakeApi;
beforeAll(async () => {
  api = await startFakeApi(200, { data: [], iterator: null, done: true });
});
afterAll(() => api.close());

it.each(["--version", "dlq --help", "keys rotate --help", "store copy --help"])(
  "hookline %s loads neither the server nor an HTTP client",
  async (command) => {
    const { packages } = await packagesLoadedBy(command.split(" "));
    for (const name of [...SERVER_PACKAGES, "undici"]) expect(packages).not.toContain(name);
    expect(packages).toContain("commander");
  },
);

it("hookline dlq list calls the API without loading the server", async () => {
  const { out, packages } = await packagesLoadedBy(["dlq", "list"], {
    HOOKLINE_URL: api.url,
    HOOKLINE_TOKEN: "hl_test_token_0123456789abcdef",
  });
  expect(out).toMatch(/^ID +STATE/);
  expect(packages).toContain("undici");
  for (const name of SERVER_PACKAGES) expect(packages).not.toContain(name);
});
