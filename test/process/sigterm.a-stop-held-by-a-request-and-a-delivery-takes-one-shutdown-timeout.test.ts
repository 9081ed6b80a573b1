/**
 * HOOKLINE_SHUTDOWN_TIMEOUT_MS is the whole stop's, not each phase's (configuration.md): a client
 * that stopped sending half-way and a receiver that holds its request, at once, end the stop
 * within one timeout. Before, the API's requests had the whole timeout and the deliveries in
 * flight the whole timeout again after it, so such a stop took twice the timeout, past the
 * service manager's wait the timeout was set to fit, and was ended by SIGKILL. The delivery given
 * up on is still owed: it is sent after restart.
 */
import { connect } from "node:net";
import { describe, expect, it } from "vitest";
import { tempDir, useCleanup } from "../support/cleanup.js";
import { GatedReceiver } from "../support/gated-receiver.js";
import { postOneMessage, spawnHookline, stopAfter } from "../support/process.js";

const SHUTDOWN_TIMEOUT_MS = 5_000;

/** The messages of the process's JSON log lines, in order, with the fields of each. */
function logLines(output: string): { msg: string; stoppingMs?: number }[] {
  return output
    .split("\n")
    .filter((line) => line.startsWith("{"))
    .map((line) => JSON.parse(line) as { msg: string; stoppingMs?: number });
}

describe("SIGTERM held by a half-arrived request and a held delivery at once", () => {
  const cleanup = useCleanup();

  it("gives both up within one shutdown timeout, and the delivery is sent after restart", async () => {
    const dir = tempDir(cleanup, "hookline-stop-budget-");
    const rx = await GatedReceiver.start();
    cleanup.push(() => rx.close());
    const env = {
      HOOKLINE_LOG_LEVEL: "info",
      // The attempt's deadline is far beyond the shutdown timeout: only the stop can end it.
      HOOKLINE_REQUEST_TIMEOUT_MS: "30000",
      HOOKLINE_SHUTDOWN_TIMEOUT_MS: String(SHUTDOWN_TIMEOUT_MS),
    };
    const start = async () => stopAfter(cleanup, await spawnHookline(dir, env), "SIGKILL");
    let proc = await start();
    const msgId = await postOneMessage(proc.url, rx.url());
    await rx.arrived(1);

    // A request whose body stops arriving: the API's close waits for it until the deadline.
    const { hostname, port } = new URL(proc.url);
    const client = connect(Number(port), hostname);
    client.on("error", () => undefined);
    cleanup.push(async () => void client.destroy());
    await new Promise<void>((resolve) => client.once("connect", resolve));
    // Asking to continue makes the server say when it has read the request's head, so the test
    // knows the request is arriving (an unread connection would count as idle and close at once).
    const continued = new Promise<void>((resolve) => client.once("data", () => resolve()));
    client.write(
      "POST /api/v1/app HTTP/1.1\r\nHost: hookline\r\nContent-Type: application/json\r\n" +
        "Expect: 100-continue\r\nContent-Length: 100\r\n\r\n",
    );
    await continued;
    client.write('{"name":');

    proc.child.kill("SIGTERM");
    expect(await proc.exited).toBe(0);

    const lines = logLines(proc.output());
    const messages = lines.map((l) => l.msg);
    const at = (prefix: string) => messages.findIndex((m) => m.startsWith(prefix));
    const stopping = at("stopping: finishing deliveries in flight");
    const apiCut = at("stopping without the API requests that had not fully arrived");
    const givenUp = at("stopping without the answers of requests still in flight");
    const stopped = at("stopped");
    // Both waits were cut, the API's first, and the stop then finished.
    expect(stopping).toBeGreaterThanOrEqual(0);
    expect([stopping < apiCut, apiCut < givenUp, givenUp < stopped]).toEqual([true, true, true]);
    // One timeout, plus what stopping does besides waiting; twice the timeout before. The bound
    // is generous: the two waits are timers, so the old stop could never come under 2x.
    const stoppingMs = lines[stopped]!.stoppingMs!;
    expect(stoppingMs).toBeGreaterThanOrEqual(SHUTDOWN_TIMEOUT_MS - 50);
    expect(stoppingMs).toBeLessThan(1.8 * SHUTDOWN_TIMEOUT_MS);

    // The delivery given up on was left owed, not lost.
    rx.release();
    proc = await start();
    await rx.arrived(2);
    expect(rx.ids).toEqual([msgId, msgId]);
  }, 60_000);
});
