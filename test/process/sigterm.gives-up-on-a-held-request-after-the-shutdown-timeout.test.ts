/**
 * HOOKLINE_SHUTDOWN_TIMEOUT_MS bounds how long a stopping hookline waits for requests in flight
 * (configuration.md): a receiver that holds a request does not keep the process alive until the
 * attempt's own deadline (up to 30 s, longer than orchestrators wait before SIGKILL). The request
 * given up on is not recorded as a failed attempt; its delivery is sent again after restart.
 */
import { describe, expect, it } from "vitest";
import { tempDir, useCleanup } from "../support/cleanup.js";
import { GatedReceiver } from "../support/gated-receiver.js";
import { call, postOneMessage, spawnHookline, stopAfter } from "../support/process.js";

describe.each(["0", "1"])("SIGTERM with %s sender threads", (threads) => {
  const cleanup = useCleanup();

  it("exits once the shutdown timeout has passed, and the held delivery is sent after restart", async () => {
    const dir = tempDir(cleanup, "hookline-held-");
    const rx = await GatedReceiver.start();
    cleanup.push(() => rx.close());
    const env = {
      HOOKLINE_SENDER_THREADS: threads,
      // The attempt's deadline is far beyond the shutdown timeout, and beyond this test's own.
      HOOKLINE_REQUEST_TIMEOUT_MS: "30000",
      HOOKLINE_SHUTDOWN_TIMEOUT_MS: "500",
    };
    const start = async () => stopAfter(cleanup, await spawnHookline(dir, env), "SIGKILL");
    let proc = await start();
    const msgId = await postOneMessage(proc.url, rx.url());
    await rx.arrived(1);

    proc.child.kill("SIGTERM");
    // The receiver still holds the request: only the shutdown timeout can end the wait.
    expect(await proc.exited).toBe(0);
    // And says so: without it the log ended at "stopping", and the repeat went unexplained.
    expect(proc.output()).toMatch(/"requests":1,.*"msg":"stopping without the answers of requests/);

    rx.release();
    proc = await start();
    await rx.arrived(2);
    expect(rx.ids).toEqual([msgId, msgId]);
    let attempts: { status: string; responseStatusCode: number }[] = [];
    while (attempts.length === 0) {
      const page = await call<{ data: typeof attempts }>(
        proc.url,
        "GET",
        `/api/v1/app/acme/attempt/msg/${msgId}`,
      );
      attempts = page.body.data;
      if (attempts.length === 0) await new Promise((r) => setTimeout(r, 100));
    }
    // One attempt, the one after restart: the request given up on left no failure behind.
    expect(attempts).toHaveLength(1);
    expect(attempts[0]).toMatchObject({ responseStatusCode: 200 });
  }, 45_000);
});
