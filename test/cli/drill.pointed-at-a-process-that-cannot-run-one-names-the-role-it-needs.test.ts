/**
 * `hookline drill` pointed at a process of a fleet that cannot run a drill says which process
 * can: one started with `--role all`, since a drill needs the API and deliveries in one process.
 * An API-only process answers 409 saying so. A worker has no drill route, and its 404 said the API
 * is served by "--role api and --role all processes": an operator who followed it to an API
 * process met that process's 409 next. Both answers name --url and HOOKLINE_URL, the input to
 * change: the 409 named neither, though only the 404 was blamed on the URL.
 */
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { runCli } from "../support/built-cli.js";
import { tempDir, useCleanup } from "../support/cleanup.js";
import { dropSchema, freshSchemaName, TEST_DATABASE_URL } from "../support/postgres.js";
import { spawnHookline, stopAfter, TEST_TOKEN } from "../support/process.js";

describe("hookline drill against a process that cannot run one", () => {
  const cleanup = useCleanup();

  it("names --role all, from a worker as from an API-only process", async () => {
    const dir = tempDir(cleanup, "hookline-drill-roles-");
    const schema = freshSchemaName();
    cleanup.push(() => dropSchema(schema));
    const env = { DATABASE_URL: TEST_DATABASE_URL, HOOKLINE_PG_SCHEMA: schema };
    const start = async (role: "api" | "worker") =>
      stopAfter(cleanup, await spawnHookline(join(dir, role), env, role), "SIGKILL");
    const api = await start("api");
    const worker = await start("worker");
    const workerUrl = /Health:\s+(http:\/\/\S+)\/api\/v1\/health/.exec(worker.output())?.[1];
    expect(workerUrl, worker.output()).toBeDefined();

    const drill = (url: string) => runCli(["drill", "--url", url, "--token", TEST_TOKEN], {});

    const fromWorker = await drill(workerUrl!);
    expect(fromWorker.code, fromWorker.err).toBe(1);
    expect(fromWorker.out).toBe("");
    expect(fromWorker.err).toContain("this is a --role worker process");
    expect(fromWorker.err).toContain(
      "failure drills run in a process that serves the API and delivers: run the drill " +
        "against a process started with --role all",
    );
    expect(fromWorker.err).not.toContain("--role api");
    expect(fromWorker.err).toContain("(--url or HOOKLINE_URL)");

    const fromApi = await drill(api.url);
    expect(fromApi.code, fromApi.err).toBe(1);
    expect(fromApi.err).toBe(
      "hookline: 409: failure drills run in a process that delivers, and this one serves the API " +
        "only (--role api): run the drill against a process started with --role all " +
        "(--url or HOOKLINE_URL)\n",
    );
  }, 60_000);
});
