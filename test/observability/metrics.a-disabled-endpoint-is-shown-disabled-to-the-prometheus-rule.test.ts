/**
 * hookline_endpoint_disabled. Disabling a failing endpoint resolves hookline's own
 * `endpoint_failing` at its next evaluation, but the shipped HooklineEndpointFailing read only
 * attempt counters, which cannot tell a disabled endpoint: it fired on until the failures had left
 * its 5-minute window. Each scrape now shows, for every endpoint with series of its own that is
 * disabled, `hookline_endpoint_disabled 1` (and nothing once it is enabled again), and the rule
 * leaves such an endpoint out. Here the series a real scrape shows is fed to promtool with the
 * shipped rules.
 */
import { spawnSync } from "node:child_process";
import { copyFileSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { anEndpoint, post } from "../support/dlq.js";
import { deliveryOf, startHookline, type TestHookline } from "../support/hookline.js";
import { scrape } from "../support/metrics.js";
import { Receiver } from "../support/receiver.js";

const RULES = fileURLToPath(new URL("../../deploy/prometheus/hookline-rules.yml", import.meta.url));

let h: TestHookline;
let rx: Receiver;
let dir: string;
beforeAll(async () => {
  rx = await Receiver.start((req) => ({ status: req.path === "/ok" ? 200 : 500 }));
  h = await startHookline();
  dir = mkdtempSync(join(tmpdir(), "hookline-promtool-"));
});
afterAll(async () => {
  await h.stop();
  await rx.close();
  rmSync(dir, { recursive: true, force: true });
});

const setDisabled = async (ep: { appId: string; endpointId: string }, disabled: boolean) => {
  const r = await h.api("PATCH", `/api/v1/app/${ep.appId}/endpoint/${ep.endpointId}`, {
    disabled,
  });
  expect(r.status).toBe(200);
};

describe("a disabled endpoint with series of its own", () => {
  it("is shown disabled while it is, and HooklineEndpointFailing leaves it out", async () => {
    const bad = await anEndpoint(h, rx.url("/down"));
    const good = await anEndpoint(h, rx.url("/ok"));
    await h.waitFor(deliveryOf(await post(h, bad.appId, {}), "dead"));
    await h.waitFor(deliveryOf(await post(h, good.appId, {}), "succeeded"));
    const disabledOf = (id: string) => `hookline_endpoint_disabled{endpoint="${id}"}`;
    const attemptsOf = (id: string, cls: string) =>
      `hookline_delivery_attempts_total{endpoint="${id}",class="${cls}"}`;

    const before = await scrape(h.url, h.token);
    expect(before.get(attemptsOf(bad.endpointId, "5xx"))).toBe(1);
    expect(before.has(disabledOf(bad.endpointId))).toBe(false);

    await setDisabled(bad, true);
    const disabled = await scrape(h.url, h.token);
    expect(disabled.get(disabledOf(bad.endpointId))).toBe(1);
    expect(disabled.has(disabledOf(good.endpointId))).toBe(false);
    // Its counters stay: what it did before it was disabled is still counted.
    expect(disabled.get(attemptsOf(bad.endpointId, "5xx"))).toBe(1);

    await setDisabled(bad, false);
    expect((await scrape(h.url, h.token)).has(disabledOf(bad.endpointId))).toBe(false);

    // The series as scraped, after 12 minutes of failures at 10 a minute: the rule fires before
    // and resolves once the series says the endpoint is disabled.
    copyFileSync(RULES, join(dir, "hookline-rules.yml"));
    const value = disabled.get(disabledOf(bad.endpointId));
    writeFileSync(
      join(dir, "test.yml"),
      `rule_files: [hookline-rules.yml]
evaluation_interval: 1m
tests:
  - interval: 1m
    input_series:
      - series: '${attemptsOf(bad.endpointId, "5xx")}'
        values: "0+10x12 120x8"
      - series: '${attemptsOf(good.endpointId, "2xx")}'
        values: "0+50x20"
      - series: '${disabledOf(bad.endpointId)}'
        values: "_x13 ${value}x7"
    alert_rule_test:
      - eval_time: 10m
        alertname: HooklineEndpointFailing
        exp_alerts:
          - exp_labels: { severity: warning, endpoint: ${bad.endpointId} }
            exp_annotations:
              summary: One endpoint is failing while the others are healthy
              runbook: docs/runbook.md#endpoint_failing
      - eval_time: 14m
        alertname: HooklineEndpointFailing
        exp_alerts: []
`,
    );
    const promtool = spawnSync("promtool", ["test", "rules", "test.yml"], {
      cwd: dir,
      encoding: "utf8",
    });
    expect(promtool.stdout + promtool.stderr).toContain("SUCCESS");
  });
});
