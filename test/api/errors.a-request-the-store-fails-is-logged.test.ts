/**
 * A request answered 5xx (the store unavailable: a full disk, a database away) is logged with
 * its cause, so the operator reading the logs learns why callers are refused. The boundary wrote
 * that line through Fastify's own logger, which hookline leaves off, so nothing came out.
 */
import { afterAll, expect, it, vi } from "vitest";
import { StoreUnavailableError } from "../../src/errors.js";
import { startHookline, type TestHookline } from "../support/hookline.js";
import { loggerToLines } from "../support/log-lines.js";

const { logger, lines } = loggerToLines({ level: "info" });

let h: TestHookline | null = null;
afterAll(() => h?.stop());

it("logs a request the store failed, with the store's reason and the route", async () => {
  h = await startHookline({ overrides: { logger } });
  vi.spyOn(h.hookline.store, "createApplication").mockRejectedValueOnce(
    new StoreUnavailableError("SQLite store unavailable (SQLITE_FULL)"),
  );
  const res = await h.api("POST", "/api/v1/app", { name: "acme" });
  expect(res.status).toBe(503);
  const failed = lines
    .map((l) => JSON.parse(l) as Record<string, unknown>)
    .filter((l) => l.msg === "request failed");
  expect(failed).toEqual([
    expect.objectContaining({
      level: 50,
      method: "POST",
      route: "/api/v1/app",
      err: expect.objectContaining({ message: "SQLite store unavailable (SQLITE_FULL)" }),
    }),
  ]);
});
