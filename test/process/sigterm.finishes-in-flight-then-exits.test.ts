import { describe, expect, it } from "vitest";
import { tempDir, useCleanup } from "../support/cleanup.js";
import { call, spawnHookline, stopAfter } from "../support/process.js";
import { Receiver } from "../support/receiver.js";

describe("SIGTERM", () => {
  const cleanup = useCleanup();

  it("stops claiming, lets requests in flight finish and records them, and leaves the rest for after restart", async () => {
    const dir = tempDir(cleanup, "hookline-sigterm-");
    const rx = await Receiver.start(() => ({ status: 200, delayMs: 1_000 }));
    cleanup.push(() => rx.close());
    const start = async () => stopAfter(cleanup, await spawnHookline(dir), "SIGKILL");
    let proc = await start();
    await call(proc.url, "POST", "/api/v1/app", { name: "acme", uid: "acme" });
    await call(proc.url, "POST", "/api/v1/app/acme/endpoint", {
      url: rx.url("/hook"),
      uid: "main",
      deliveryPolicy: { concurrencyLimit: 3 },
    });
    for (let i = 0; i < 9; i++) {
      await call(proc.url, "POST", "/api/v1/app/acme/msg", { eventType: "e", payload: { i } });
    }
    await rx.waitFor(3);
    proc.child.kill("SIGTERM");
    expect(await proc.exited).toBe(0);
    // The three in flight finished; nothing new was started during shutdown.
    expect(rx.requests).toHaveLength(3);

    proc = await start();
    // Wait until hookline has recorded nine successful attempts, then count what arrived.
    let succeeded = 0;
    while (succeeded < 9) {
      const attempts = await call<{ data: { status: number }[] }>(
        proc.url,
        "GET",
        "/api/v1/app/acme/attempt/endpoint/main?limit=100",
      );
      succeeded = attempts.body.data.filter((a) => a.status === 0).length;
      if (succeeded < 9) await new Promise((r) => setTimeout(r, 100));
    }
    expect(succeeded).toBe(9);
    // The three finished before the stop were recorded then, so none of them was sent again.
    const ids = rx.requests.map((r) => r.headers["webhook-id"]);
    expect(ids).toHaveLength(9);
    expect(new Set(ids).size).toBe(9);
  }, 60_000);
});
