/**
 * A stand-in for hookline's API on loopback, for CLI tests that check what a command sends: it
 * keeps each request's JSON body and answers every request with the same JSON.
 */
import { createServer, type Server } from "node:http";
import { dlqCommand } from "../../src/cli/dlq.js";

/** A running stand-in: its URL, the bodies it received in order, and how to close it. */
export interface FakeApi {
  url: string;
  bodies: Record<string, unknown>[];
  close(): Promise<void>;
}

/** Starts a stand-in that answers `status` with `answer` to every request. */
export async function startFakeApi(status: number, answer: unknown): Promise<FakeApi> {
  const bodies: Record<string, unknown>[] = [];
  const server: Server = createServer((req, res) => {
    let raw = "";
    req.on("data", (c: Buffer) => (raw += c.toString()));
    req.on("end", () => {
      bodies.push(JSON.parse(raw || "{}") as Record<string, unknown>);
      res.writeHead(status, { "content-type": "application/json" });
      res.end(JSON.stringify(answer));
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", () => r()));
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}`,
    bodies,
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}

/**
 * Runs `hookline dlq <args>` against `url` at the time `now`; resolves with what it printed. A
 * real hookline needs its own `token`.
 */
export async function runDlq(
  url: string,
  args: string[],
  now: number,
  token = "hl_test_token_0123456789abcdef",
): Promise<string> {
  let out = "";
  const cmd = dlqCommand(
    { url, token },
    {
      out: { write: (s: string) => (out += s) },
      now: () => now,
      sleep: async () => {},
      setExitCode: () => {},
    },
  );
  for (const c of [cmd, ...cmd.commands]) c.exitOverride();
  await cmd.parseAsync(args, { from: "user" });
  return out;
}
