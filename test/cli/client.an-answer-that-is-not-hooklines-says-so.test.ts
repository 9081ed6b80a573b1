/**
 * The CLI's URL defaults to 127.0.0.1:8080, a port many other services use, and a proxy in front
 * of hookline answers its own error pages. Such an answer is not hookline's JSON: the command says
 * which server answered what, on one line, and where the URL comes from — not a TypeError's stack
 * trace ("Cannot read properties of undefined") or a whole HTML page.
 */
import { createServer, type Server } from "node:http";
import { afterAll, beforeAll, expect, it } from "vitest";
import { dlqCommand } from "../../src/cli/dlq.js";
import { drillCommand } from "../../src/cli/drill.js";
import { HooklineError } from "../../src/errors.js";

let server: Server;
let url: string;
beforeAll(async () => {
  server = createServer((req, res) => {
    req.resume();
    res.writeHead(req.url?.includes("gateway") ? 502 : 200, { "content-type": "text/html" });
    res.end(
      "<html>\n<head><title>Welcome</title></head>\n<body>\n<h1>It works</h1>\n</body>\n</html>\n",
    );
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", () => r()));
  url = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));

const io = {
  out: { write: () => true },
  now: () => 0,
  sleep: async () => {},
  setExitCode: () => {},
};
const token = "hl_test_token_0123456789abcdef";

async function failure(run: Promise<unknown>): Promise<Error> {
  const err = await run.then(
    () => new Error("the command succeeded"),
    (e: unknown) => e as Error,
  );
  return err;
}

it.each([["list"], ["summary"], ["show", "dlq_x"], ["job", "job_x"], ["replay", "dlq_x"]])(
  "dlq %s against another service on the port names the URL and HOOKLINE_URL",
  async (...args: string[]) => {
    const err = await failure(dlqCommand({ url, token }, io).parseAsync(args, { from: "user" }));
    expect(err).toBeInstanceOf(HooklineError);
    expect(err.message).toContain(`200 OK from ${url}`);
    expect(err.message).toMatch(/ \(--url or HOOKLINE_URL\)$/);
    expect(err.message).not.toContain("\n");
  },
);

it("drill against another service says so too", async () => {
  const err = await failure(drillCommand({ url, token }, io).parseAsync([], { from: "user" }));
  expect(err).toBeInstanceOf(HooklineError);
  expect(err.message).toContain(`200 OK from ${url}`);
  expect(err.message).toMatch(/ \(--url or HOOKLINE_URL\)$/);
});

it("a proxy's error page is named by its status, on one line", async () => {
  const err = await failure(
    dlqCommand({ url: `${url}/gateway`, token }, io).parseAsync(["summary"], { from: "user" }),
  );
  expect(err).toBeInstanceOf(HooklineError);
  expect(err.message).toContain(`502 Bad Gateway from ${url}/gateway`);
  expect(err.message).not.toContain("\n");
  expect(err.message).not.toContain("<html>");
});
