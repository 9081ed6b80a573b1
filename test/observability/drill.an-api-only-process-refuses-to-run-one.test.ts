/**
 * A failure drill asked of an API-only process (`--role api`, the processes behind the load
 * balancer that HOOKLINE_URL usually names) is refused at once, saying where drills run. Such a
 * process delivers nothing, so the drill could only wait out its step timeout at "retries fire"
 * and record a failure: `drill_failing` then fired, the runbook sent the operator looking for an
 * engine that was fine, and the drill's message stayed behind in the dead-letter queue.
 */
import { afterEach, describe, expect, it } from "vitest";
import { startHookline, type TestHookline } from "../support/hookline.js";
import { dropSchema, freshSchemaName, TEST_DATABASE_URL } from "../support/postgres.js";

let h: TestHookline | null = null;
let schema = "";
afterEach(async () => {
  await h?.stop();
  h = null;
  await dropSchema(schema);
});

describe("a failure drill asked of an API-only process", () => {
  it("is answered 409 naming the role drills need, and records no run", async () => {
    schema = freshSchemaName();
    h = await startHookline({
      env: {
        DATABASE_URL: TEST_DATABASE_URL,
        HOOKLINE_PG_SCHEMA: schema,
        HOOKLINE_ROLE: "api",
        // Were the drill run, its failure would come after this long, not after a minute.
        HOOKLINE_DRILL_STEP_TIMEOUT_SECONDS: "5",
      },
    });
    const res = await h.api<{ code: string; detail: string }>("POST", "/api/v1/drill");
    expect(res.status).toBe(409);
    expect(res.body.code).toBe("conflict");
    expect(res.body.detail).toMatch(/--role all/);

    const runs = await h.api<{ data: unknown[] }>("GET", "/api/v1/drill");
    expect(runs.body.data).toEqual([]);
    const stats = await h.api<{ dlqOpen: number }>("GET", "/api/v1/stats");
    expect(stats.body.dlqOpen).toBe(0);
  });
});
