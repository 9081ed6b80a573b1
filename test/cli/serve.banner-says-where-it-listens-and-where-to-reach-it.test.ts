/**
 * The start banner says where hookline listens, and a URL that reaches it. With HOOKLINE_HOST set
 * to every interface (0.0.0.0 or ::) it used to print only the loopback URL the server reports,
 * hiding that the API was open on every interface; with HOOKLINE_PUBLIC_URL it printed that URL
 * as where it listens, saying nothing of the address actually bound.
 */
import { describe, expect, it } from "vitest";
import { tempDir, useCleanup } from "../support/cleanup.js";
import { runHookline } from "../support/process.js";

const cleanup = useCleanup();

/** Starts hookline with these settings and reads its banner's listening and URL lines. */
async function banner(env: Record<string, string>) {
  const running = await runHookline(cleanup, tempDir(cleanup, "hookline-banner-"), env);
  const out = running.output();
  return {
    listening: /listening on (.*)$/m.exec(out)?.[1],
    url: /^ {2}URL: +(.*)$/m.exec(out)?.[1],
    api: /^ {2}API: +(.*)$/m.exec(out)?.[1],
  };
}

describe("the start banner", () => {
  it("names every interface on 0.0.0.0 and gives a loopback URL that answers", async () => {
    const b = await banner({ HOOKLINE_HOST: "0.0.0.0" });
    const port = /^0\.0\.0\.0:(\d+) \(every interface\)$/.exec(b.listening ?? "")?.[1];
    expect(port, b.listening).toBeDefined();
    expect(b.url).toBe(`http://127.0.0.1:${port}`);
    expect(b.api).toBe(`http://127.0.0.1:${port}/api/v1`);
    expect((await fetch(`${b.url}/api/v1/health/ready`)).status).toBe(200);
  }, 60_000);

  it("names every interface on :: and gives a loopback URL that answers", async () => {
    const b = await banner({ HOOKLINE_HOST: "::" });
    const port = /^\[::\]:(\d+) \(every interface\)$/.exec(b.listening ?? "")?.[1];
    expect(port, b.listening).toBeDefined();
    expect(b.url).toBe(`http://[::1]:${port}`);
    expect((await fetch(`${b.url}/api/v1/health/ready`)).status).toBe(200);
  }, 60_000);

  it("with a public URL, shows it and still says where it listens", async () => {
    const b = await banner({ HOOKLINE_PUBLIC_URL: "https://hooks.example.com" });
    expect(b.listening).toMatch(/^127\.0\.0\.1:\d+$/);
    expect(b.url).toBe("https://hooks.example.com");
    expect(b.api).toBe("https://hooks.example.com/api/v1");
  }, 60_000);

  it("on one address with no public URL, says it as before", async () => {
    const b = await banner({});
    expect(b.listening).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(b.url).toBeUndefined();
  }, 60_000);
});
