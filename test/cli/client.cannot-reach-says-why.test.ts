/**
 * "cannot reach hookline at …" was all the CLI said when no answer came, whatever the reason: a
 * refused connection, a name that does not resolve, `https://` to hookline's plain-HTTP port. Each
 * sends the operator somewhere else, so the message says which it was.
 */
import { createServer } from "node:net";
import { afterAll, beforeAll, expect, it } from "vitest";
import { dlqCommand } from "../../src/cli/dlq.js";
import { drillCommand } from "../../src/cli/drill.js";
import { startFakeApi, type FakeApi } from "../support/fake-api.js";

const io = {
  out: { write: () => true },
  now: () => Date.now(),
  sleep: async () => {},
  setExitCode: () => {},
};
const token = "hl_test_token_0123456789abcdef";

let api: FakeApi;
beforeAll(async () => {
  api = await startFakeApi(200, { data: [] });
});
afterAll(() => api.close());

async function failure(run: Promise<unknown>): Promise<string> {
  return run.then(
    () => "the command succeeded",
    (e: unknown) => (e as Error).message,
  );
}

/** A loopback port nothing listens on: one that was free a moment ago. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", () => r()));
  const { port } = server.address() as { port: number };
  await new Promise<void>((r) => server.close(() => r()));
  return port;
}

it("a refused connection is named as one", async () => {
  const url = `http://127.0.0.1:${await closedPort()}`;
  const message = await failure(
    dlqCommand({ url, token }, io).parseAsync(["summary"], { from: "user" }),
  );
  expect(message).toBe(
    `cannot reach hookline at ${url} (--url or HOOKLINE_URL): connect ECONNREFUSED ${url.slice(7)}`,
  );
});

it("https:// to a plain-HTTP port says TLS failed, in a line a person reads", async () => {
  const url = api.url.replace("http://", "https://");
  const message = await failure(
    dlqCommand({ url, token }, io).parseAsync(["summary"], { from: "user" }),
  );
  expect(message).toBe(
    `cannot reach hookline at ${url} (--url or HOOKLINE_URL): TLS failed: wrong version number`,
  );
});

it("a URL with a user and password in it, which fetch will not send, says so (drill too)", async () => {
  const url = api.url.replace("http://", "http://ops:secret@");
  const message = await failure(drillCommand({ url, token }, io).parseAsync([], { from: "user" }));
  expect(message).toMatch(
    /^cannot reach hookline at \S+ \(--url or HOOKLINE_URL\): Request cannot be constructed from a URL that includes credentials/,
  );
});
