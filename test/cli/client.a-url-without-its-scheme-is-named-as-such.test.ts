/**
 * `HOOKLINE_URL=127.0.0.1:8080` or `--url localhost:8080`, as curl takes them, are no http URL to
 * the CLI. With hookline running right there, "cannot reach hookline at 127.0.0.1:8080" sent the
 * operator to look for a network fault; the message says what is wrong with the URL instead.
 */
import { expect, it } from "vitest";
import { dlqCommand } from "../../src/cli/dlq.js";
import { drillCommand } from "../../src/cli/drill.js";

const io = {
  out: { write: () => true },
  now: () => Date.now(),
  sleep: async () => {},
  setExitCode: () => {},
};
const token = "hl_test_token_0123456789abcdef";

async function failure(run: Promise<unknown>): Promise<string> {
  return run.then(
    () => "the command succeeded",
    (e: unknown) => (e as Error).message,
  );
}

it.each(["127.0.0.1:8080", "localhost:8080", "ftp://127.0.0.1:8080", "hookline"])(
  "dlq summary --url %s says it is not an http(s) URL",
  async (url) => {
    const message = await failure(
      dlqCommand({ url, token }, io).parseAsync(["summary"], { from: "user" }),
    );
    expect(message).toBe(`${url} is not an http:// or https:// URL (--url or HOOKLINE_URL)`);
  },
);

it("an empty --url is named as empty, not left as a blank before the rest", async () => {
  const message = await failure(
    dlqCommand({ token }, io).parseAsync(["--url", "", "summary"], { from: "user" }),
  );
  expect(message).toBe("an empty URL is not an http:// or https:// URL (--url or HOOKLINE_URL)");
});

it("drill too", async () => {
  const message = await failure(
    drillCommand({ url: "127.0.0.1:8080", token }, io).parseAsync([], { from: "user" }),
  );
  expect(message).toBe("127.0.0.1:8080 is not an http:// or https:// URL (--url or HOOKLINE_URL)");
});
