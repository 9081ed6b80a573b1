/**
 * A failure drill on a hookline that refuses private targets: the drill's own loopback receiver
 * is let through (and only it), retries fire, the dead-letter queue captures the event, a replay
 * delivers it; the result is recorded, listed and exported as a metric. `hookline drill` runs it
 * from a terminal.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { anApplication, anEndpoint } from "../store/behaviour/fixtures.js";
import { runCli } from "../support/built-cli.js";
import { startHookline, type TestHookline } from "../support/hookline.js";
import { Receiver } from "../support/receiver.js";

interface DrillOut {
  id: string;
  passed: boolean;
  steps: { name: string; passed: boolean; ms: number; detail: string }[];
}

let h: TestHookline;
beforeAll(async () => {
  h = await startHookline({ env: { HOOKLINE_ALLOW_PRIVATE_TARGETS: "0" } });
});
afterAll(async () => h.stop());

const metric = async (name: string): Promise<number> => {
  const res = await fetch(`${h.url}/metrics`, { headers: { authorization: `Bearer ${h.token}` } });
  const line = (await res.text()).split("\n").find((l) => l.startsWith(`${name} `));
  return Number(line?.split(" ")[1]);
};

describe("a failure drill", () => {
  it("passes every step with the SSRF guard on, and is recorded", async () => {
    expect(await metric("hookline_drill_last_success_timestamp_seconds")).toBe(0);
    const res = await h.api<DrillOut>("POST", "/api/v1/drill");
    expect(res.status).toBe(200);
    expect(res.body.steps.map((s) => [s.name, s.passed])).toEqual([
      ["prepare", true],
      ["send", true],
      ["retries fire", true],
      ["dead-lettered", true],
      ["replay delivers", true],
    ]);
    expect(res.body.passed).toBe(true);
    for (const s of res.body.steps) expect(s.ms).toBeGreaterThanOrEqual(0);

    const listed = await h.api<{ data: DrillOut[] }>("GET", "/api/v1/drill");
    expect(listed.body.data[0]).toMatchObject({ id: res.body.id, passed: true });
    expect(await metric("hookline_drill_last_success_timestamp_seconds")).toBeGreaterThan(0);
    expect(await metric('hookline_drill_runs_total{result="passed"}')).toBe(1);
    // The drill's record was replayed successfully: nothing is left open in the queue.
    const stats = await h.api<{ dlqOpen: number }>("GET", "/api/v1/stats");
    expect(stats.body.dlqOpen).toBe(0);
  });

  it("leaves the guard in place for every other loopback target", async () => {
    const rx = await Receiver.start();
    try {
      const { store } = h.hookline;
      const app = await store.createApplication(anApplication({ name: "guarded" }));
      // Written to the store directly: the API would refuse this URL before the engine could.
      const ep = await store.createEndpoint(anEndpoint(app.id, { url: rx.url("/sneaky") }));
      const msg = await h.svix.message.create(app.id, { eventType: "a.b", payload: {} });
      const e = await h.waitFor(
        (x) => x.type === "delivery" && x.messageId === msg.id && x.state === "dead",
      );
      expect(e.type === "delivery" && e.attempt?.error).toBe("refused_target");
      expect(rx.requests).toHaveLength(0);
      expect(ep.id).toBeTruthy();
    } finally {
      await rx.close();
    }
  });

  it("runs from a terminal with `hookline drill`", async () => {
    const run = await runCli(["drill"], { HOOKLINE_URL: h.url, HOOKLINE_TOKEN: h.token });
    expect(run.err).toBe("");
    expect(run.code).toBe(0);
    expect(run.out).toMatch(/^pass {2}retries fire/m);
    expect(run.out).toMatch(/PASSED in \d+ ms/);
  });
});
