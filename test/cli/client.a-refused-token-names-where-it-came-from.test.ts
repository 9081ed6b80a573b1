/**
 * A token hookline refuses (mistyped, revoked, or another hookline's) is an input like the URL:
 * the message says where the CLI took it from, as it does for a URL it cannot reach.
 */
import { afterAll, beforeAll, expect, it } from "vitest";
import { dlqCommand } from "../../src/cli/dlq.js";
import { drillCommand } from "../../src/cli/drill.js";
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

async function failure(run: Promise<unknown>): Promise<string> {
  return run.then(
    () => "the command succeeded",
    (e: unknown) => (e as Error).message,
  );
}

it("dlq summary with a wrong token names --token and HOOKLINE_TOKEN", async () => {
  const cmd = dlqCommand({ url: h.url, token: "hl_admin_not-this-one" }, io);
  const message = await failure(cmd.parseAsync(["summary"], { from: "user" }));
  expect(message).toMatch(/^401: .* \(--token or HOOKLINE_TOKEN\)$/);
});

it("drill with a wrong token too", async () => {
  const cmd = drillCommand({ url: h.url, token: "hl_admin_not-this-one" }, io);
  const message = await failure(cmd.parseAsync([], { from: "user" }));
  expect(message).toMatch(/^401: .* \(--token or HOOKLINE_TOKEN\)$/);
});

it("dlq and drill without a token name --token and HOOKLINE_TOKEN the same way", async () => {
  const dlq = await failure(
    dlqCommand({ url: h.url }, io).parseAsync(["summary"], { from: "user" }),
  );
  const drill = await failure(drillCommand({ url: h.url }, io).parseAsync([], { from: "user" }));
  expect(dlq).toBe("give the admin token (--token or HOOKLINE_TOKEN)");
  expect(drill).toBe(dlq);
});
