import { randomBytes } from "node:crypto";
import { Writable } from "node:stream";
import { pino } from "pino";
import { expect, it } from "vitest";
import { startHookline } from "../support/hookline.js";

async function warningsAtStart(env: Record<string, string>): Promise<string[]> {
  const warnings: string[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _enc, done) {
      const line = JSON.parse(chunk.toString()) as { level: number; msg: string };
      if (line.level === 40) warnings.push(line.msg);
      done();
    },
  });
  const h = await startHookline({ env, overrides: { logger: pino({ level: "info" }, sink) } });
  await h.stop();
  return warnings;
}

it("warns once, loudly, when secrets and payloads would be stored in plaintext", async () => {
  const without = await warningsAtStart({});
  expect(without.filter((w) => w.includes("ENCRYPTION AT REST IS OFF"))).toHaveLength(1);
  const withKey = await warningsAtStart({
    HOOKLINE_ENCRYPTION_KEY: randomBytes(32).toString("base64"),
  });
  expect(withKey.filter((w) => w.includes("ENCRYPTION"))).toEqual([]);
});
