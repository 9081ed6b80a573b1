/**
 * serve's banner prints the API's URL (`…/api/v1`) above the address it listens on, and the CLI
 * takes hookline's address: given the API's, `hookline dlq …` answered "404: no route for GET
 * /api/v1/api/v1/dlq", which named neither --url nor what to change. An address a route cannot be
 * found under is named as where the CLI took it from, and the API's path as what to leave off.
 */
import { afterAll, beforeAll, expect, it } from "vitest";
import { dlqCommand } from "../../src/cli/dlq.js";
import { startHookline, type TestHookline } from "../support/hookline.js";

let h: TestHookline;
beforeAll(async () => {
  h = await startHookline();
});
afterAll(() => h.stop());

const io = {
  out: { write: () => true },
  now: () => Date.now(),
  sleep: async () => {},
  setExitCode: () => {},
};

async function failure(url: string): Promise<string> {
  const cmd = dlqCommand({ url, token: h.token }, io);
  return cmd.parseAsync(["summary"], { from: "user" }).then(
    () => "the command succeeded",
    (e: unknown) => (e as Error).message,
  );
}

it("names --url and the path to leave off when the URL ends in /api/v1", async () => {
  for (const url of [`${h.url}/api/v1`, `${h.url}/api/v1/`]) {
    expect(await failure(url)).toBe(
      "404: no route for GET /api/v1/api/v1/dlq/summary (--url or HOOKLINE_URL: hookline's address, without /api/v1)",
    );
  }
});

it("names --url when the URL has another path hookline does not serve", async () => {
  expect(await failure(`${h.url}/hookline`)).toBe(
    "404: no route for GET /hookline/api/v1/dlq/summary (--url or HOOKLINE_URL)",
  );
});
