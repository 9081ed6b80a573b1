/**
 * The start log line says where hookline listens, as the banner does. Its `url` is the URL to
 * reach hookline at, loopback's on every interface; with only that, a log read instead of the
 * banner (under a service manager) hid that the API was open on every interface.
 */
import { describe, expect, it } from "vitest";
import { tempDir, useCleanup } from "../support/cleanup.js";
import { runHookline } from "../support/process.js";

const cleanup = useCleanup();

describe("the start log line on every interface", () => {
  it("names the address bound as every interface", async () => {
    const running = await runHookline(cleanup, tempDir(cleanup, "hookline-start-log-"), {
      HOOKLINE_HOST: "0.0.0.0",
      HOOKLINE_LOG_LEVEL: "info",
    });
    // The log is written asynchronously, and may come after the banner.
    const find = () =>
      running
        .output()
        .split("\n")
        .find((l) => l.includes('"msg":"hookline is running"'));
    while (!find()) await new Promise((r) => setTimeout(r, 50));
    const line = find();
    const entry = JSON.parse(line ?? "{}") as { listening?: string; url?: string };
    const port = new URL(running.url).port;
    expect(entry.listening).toBe(`0.0.0.0:${port} (every interface)`);
    expect(entry.url).toBe(`http://127.0.0.1:${port}`);
  }, 60_000);
});
