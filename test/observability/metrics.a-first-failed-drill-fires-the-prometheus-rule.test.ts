/**
 * The counters whose labels are known in advance (drill results, dead-letter changes, replay
 * results) are exported at 0 from start. A series that first appears at 1 shows no increase() in
 * Prometheus, so the first failed drill since hookline started, the very thing
 * HooklineDrillFailing is for, fired nothing: `hookline_drill_runs_total{result="failed"}` was
 * absent until then. Here hookline's own scrapes, before and after a drill that fails, are fed to
 * promtool with the shipped rules.
 */
import { spawnSync } from "node:child_process";
import { copyFileSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startHookline, type TestHookline } from "../support/hookline.js";
import { scrape } from "../support/metrics.js";

const RULES = fileURLToPath(new URL("../../deploy/prometheus/hookline-rules.yml", import.meta.url));
const FAILED = 'hookline_drill_runs_total{result="failed"}';

let h: TestHookline;
let dir: string;
beforeAll(async () => {
  h = await startHookline();
  dir = mkdtempSync(join(tmpdir(), "hookline-promtool-"));
});
afterAll(async () => {
  await h.stop();
  rmSync(dir, { recursive: true, force: true });
});

/** A promtool series value: the scraped number, or `_` (no sample) when the series was absent. */
const sample = (m: Map<string, number>, series: string) => String(m.get(series) ?? "_");

describe("the first failed drill since start", () => {
  it("fires HooklineDrillFailing from the series hookline exports", async () => {
    const before = await scrape(h.url, h.token);
    expect(before.get(FAILED)).toBe(0);
    const kinds = ["recorded", "overflowed", "replay_succeeded", "replay_failed"];
    for (const kind of [...kinds, "replay_withdrawn", "resolved", "abandoned"]) {
      expect(before.get(`hookline_dlq_events_total{kind="${kind}"}`)).toBe(0);
    }
    expect(before.get('hookline_dlq_replays_total{result="failed"}')).toBe(0);

    // A customer's application holding the drill's uid fails the drill at its first step.
    const now = Date.now();
    await h.hookline.store.createApplication({
      id: `app_${now}`,
      uid: "hookline-drill",
      name: "not hookline's",
      rateLimit: null,
      metadata: {},
      deliveryPolicy: null,
      createdAt: now,
      updatedAt: now,
    });
    const run = await h.api<{ passed: boolean }>("POST", "/api/v1/drill");
    expect(run.body.passed).toBe(false);
    const after = await scrape(h.url, h.token);
    expect(after.get(FAILED)).toBe(1);

    copyFileSync(RULES, join(dir, "hookline-rules.yml"));
    const [b, a] = [sample(before, FAILED), sample(after, FAILED)];
    writeFileSync(
      join(dir, "test.yml"),
      `rule_files: [hookline-rules.yml]
evaluation_interval: 1m
tests:
  - interval: 1m
    input_series:
      - series: '${FAILED}'
        values: "${b} ${b} ${a} ${a} ${a}"
    alert_rule_test:
      - eval_time: 4m
        alertname: HooklineDrillFailing
        exp_alerts:
          - exp_labels: { severity: warning }
            exp_annotations:
              summary: Failure drills stopped passing
              runbook: docs/runbook.md#drill_failing
`,
    );
    const promtool = spawnSync("promtool", ["test", "rules", "test.yml"], {
      cwd: dir,
      encoding: "utf8",
    });
    expect(promtool.stdout + promtool.stderr).toContain("SUCCESS");
  });
});
