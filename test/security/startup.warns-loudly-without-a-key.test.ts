import { randomBytes } from "node:crypto";
import { expect, it } from "vitest";
import { startHookline } from "../support/hookline.js";
import { loggerToLines } from "../support/log-lines.js";

async function warningsAtStart(env: Record<string, string>): Promise<string[]> {
  const { logger, lines } = loggerToLines({ level: "info" });
  const h = await startHookline({ env, overrides: { logger } });
  await h.stop();
  return lines
    .map((l) => JSON.parse(l) as { level: number; msg: string })
    .filter((l) => l.level === 40)
    .map((l) => l.msg);
}

it("warns once, loudly, when secrets and payloads would be stored in plaintext", async () => {
  const without = await warningsAtStart({});
  expect(without.filter((w) => w.includes("ENCRYPTION AT REST IS OFF"))).toHaveLength(1);
  const withKey = await warningsAtStart({
    HOOKLINE_ENCRYPTION_KEY: randomBytes(32).toString("base64"),
  });
  expect(withKey.filter((w) => w.includes("ENCRYPTION"))).toEqual([]);
});
