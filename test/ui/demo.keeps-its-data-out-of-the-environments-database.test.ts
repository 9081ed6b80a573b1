/**
 * `npm run demo` keeps its data in a temporary data dir removed on exit (docs/dashboard.md), even
 * from a shell where DATABASE_URL names the operator's PostgreSQL: the demo's application, its
 * loopback endpoints and its stream of events must not land in that database and stay there.
 */
import { spawn } from "node:child_process";
import { once } from "node:events";
import { afterAll, expect, it } from "vitest";
import { cliEnv } from "../support/built-cli.js";
import { TEST_DATABASE_URL, adminQuery, dropSchema, freshSchemaName } from "../support/postgres.js";

const schema = freshSchemaName();
afterAll(() => dropSchema(schema));

it("runs on its own SQLite file with DATABASE_URL set", async () => {
  const child = spawn(process.execPath, ["--import", "tsx", "scripts/demo.ts"], {
    env: cliEnv({
      HOOKLINE_PORT: "0",
      HOOKLINE_LOG_LEVEL: "silent",
      DATABASE_URL: TEST_DATABASE_URL,
      HOOKLINE_PG_SCHEMA: schema,
    }),
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  child.stderr.on("data", (b: Buffer) => (out += b.toString()));
  await new Promise<void>((resolve, reject) => {
    child.stdout.on("data", (b: Buffer) => {
      out += b.toString();
      if (out.includes("Press Ctrl-C")) resolve();
    });
    child.once("exit", (code) => reject(new Error(`demo exited (${code}):\n${out}`)));
  });
  child.kill("SIGINT");
  const [code] = (await once(child, "exit")) as [number | null];
  expect(code).toBe(0);
  const made = await adminQuery(
    "SELECT schema_name FROM information_schema.schemata WHERE schema_name = $1",
    [schema],
  );
  expect(made).toEqual([]);
});
