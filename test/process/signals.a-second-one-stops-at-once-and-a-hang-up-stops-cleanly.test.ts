/**
 * Signals `hookline serve` answers: a second Ctrl-C while it waits for a held request ends the wait
 * at once (exit 1), and the delivery given up on is sent after restart; a copy of the first that
 * arrives with it (npm passing Ctrl-C on) does not; SIGHUP (the terminal it ran
 * in was closed) stops it cleanly, as SIGTERM does. Before, the second signal was ignored and
 * SIGHUP killed the process without a clean stop.
 */
import { describe, expect, it } from "vitest";
import { tempDir, useCleanup } from "../support/cleanup.js";
import { GatedReceiver } from "../support/gated-receiver.js";
import { call, postOneMessage, spawnHookline, stopAfter } from "../support/process.js";

describe("signals", () => {
  const cleanup = useCleanup();
  /** hookline on `dir`, killed with SIGKILL after the test if it still runs. */
  const start = async (dir: string, env: Record<string, string>) =>
    stopAfter(cleanup, await spawnHookline(dir, env), "SIGKILL");

  it("a second SIGINT while stopping exits at once; the held delivery is sent after restart", async () => {
    const dir = tempDir(cleanup, "hookline-signals-");
    const rx = await GatedReceiver.start();
    cleanup.push(() => rx.close());
    // Far longer than this test: only the second signal can end the first one's wait.
    const env = { HOOKLINE_SHUTDOWN_TIMEOUT_MS: "120000", HOOKLINE_REQUEST_TIMEOUT_MS: "30000" };
    let proc = await start(dir, { ...env, HOOKLINE_LOG_LEVEL: "info" });
    const msgId = await postOneMessage(proc.url, rx.url());
    await rx.arrived(1);

    // The second is a copy of the first (npm passes Ctrl-C on to the process that had it too).
    proc.child.kill("SIGINT");
    proc.child.kill("SIGINT");
    while (!proc.output().includes("finishing deliveries in flight")) {
      await new Promise((r) => setTimeout(r, 50));
    }
    await new Promise((r) => setTimeout(r, 1_500));
    expect(proc.output()).not.toContain("stopping at once");
    proc.child.kill("SIGINT");
    expect(await proc.exited).toBe(1);
    expect(proc.output()).toContain("stopping at once");

    rx.release();
    proc = await start(dir, env);
    await rx.arrived(2);
    expect(rx.ids).toEqual([msgId, msgId]);
  }, 45_000);

  it("SIGHUP stops cleanly", async () => {
    const dir = tempDir(cleanup, "hookline-signals-");
    const proc = await start(dir, { HOOKLINE_LOG_LEVEL: "info" });
    // Once it has answered a request, as a terminal's user would have seen it at work. (Run from
    // source, a hang-up in the first instants after the banner can still end it the default way.)
    await call(proc.url, "POST", "/api/v1/app", { name: "acme", uid: "acme" });
    proc.child.kill("SIGHUP");
    expect(await proc.exited).toBe(0);
    expect(proc.output()).toContain('"signal":"SIGHUP"');
    // The log's last line says the stop finished, not only that it began.
    expect(proc.output().trimEnd().split("\n").pop()).toMatch(/"stoppingMs":\d+,"msg":"stopped"/);
  });
});
