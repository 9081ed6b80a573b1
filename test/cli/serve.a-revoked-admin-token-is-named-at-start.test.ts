/**
 * A revoked admin token stays refused across restarts (docs/configuration.md). `hookline serve`
 * started with one said nothing of it: the banner printed the generated token as the one to use,
 * and every call with it answered 401 "the token is not valid". It now says the token was revoked
 * and what to do, in the banner and the log.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it, vi } from "vitest";
import { tempDir, useCleanup } from "../support/cleanup.js";
import { runHookline, spawnHookline, stopAfter, TEST_TOKEN } from "../support/process.js";

const cleanup = useCleanup();

/** Revokes the admin token `token` of the hookline at `url` with that token itself. */
async function revokeItself(url: string, token: string): Promise<void> {
  const headers = { authorization: `Bearer ${token}` };
  const list = (await (await fetch(`${url}/api/v1/tokens`, { headers })).json()) as {
    data: { id: string; name: string }[];
  };
  const admin = list.data.find((t) => t.name === "admin")!;
  const res = await fetch(`${url}/api/v1/tokens/${admin.id}`, { method: "DELETE", headers });
  expect(res.status).toBe(204);
}

/** Starts hookline on `dir`, revokes its admin token and stops it. */
async function revokeAndStop(dir: string, env: Record<string, string>, token: () => string) {
  const first = stopAfter(cleanup, await spawnHookline(dir, env));
  await revokeItself(first.url, token());
  first.child.kill("SIGTERM");
  await first.exited;
}

describe("serve with a revoked admin token", () => {
  it("says the generated token was revoked and how to get a new one", async () => {
    const dir = tempDir(cleanup, "hookline-serve-");
    const env = { HOOKLINE_ADMIN_TOKEN: "", HOOKLINE_LOG_LEVEL: "info" };
    const kept = () => readFileSync(join(dir, "admin-token"), "utf8").trim();
    await revokeAndStop(dir, env, kept);

    const again = await runHookline(cleanup, dir, env);
    const out = again.output();
    expect(out).toContain(`Admin token:  ${kept()} (revoked)`);
    expect(out).toMatch(
      new RegExp(
        `WARNING: +the admin token in ${join(dir, "admin-token")} was revoked at \\S+ and is refused: delete that file and restart`,
      ),
    );
    // The log line is written asynchronously, so it may follow the banner.
    await vi.waitFor(
      () =>
        expect(again.output()).toMatch(/"level":40.*"msg":"the admin token in .* was revoked at/),
      { timeout: 5_000 },
    );
    const refused = await fetch(`${again.url}/api/v1/app`, {
      headers: { authorization: `Bearer ${kept()}` },
    });
    expect(refused.status).toBe(401);
  });

  it("says a revoked HOOKLINE_ADMIN_TOKEN needs a new value", async () => {
    const dir = tempDir(cleanup, "hookline-serve-");
    await revokeAndStop(dir, {}, () => TEST_TOKEN);

    const again = await runHookline(cleanup, dir);
    expect(again.output()).toContain("Admin token:  as set in HOOKLINE_ADMIN_TOKEN (revoked)");
    expect(again.output()).toMatch(
      /WARNING: +HOOKLINE_ADMIN_TOKEN was revoked at \S+ and is refused: set a new value and restart/,
    );
    expect(again.output()).not.toContain(TEST_TOKEN);
  });

  it("says nothing of the kind while the token is usable", async () => {
    const running = await runHookline(cleanup, tempDir(cleanup, "hookline-serve-"));
    expect(running.output()).not.toContain("revoked");
  });
});
