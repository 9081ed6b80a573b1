/** What metrics, alerts and drills need from a store: backlog gauges, alert states, drill runs. */
import { describe, expect, it } from "vitest";
import type { DrillRun } from "../../../src/store/port.js";
import { deadLetter } from "./dlq-fixtures.js";
import {
  accept,
  anAlert as alert,
  claimAll,
  HOUR,
  MINUTE,
  saveAlerts,
  seedApp,
  T0,
  type StoreUnderTest,
} from "./fixtures.js";

const run = (id: string, startedAt: number, passed: boolean): DrillRun => ({
  id,
  trigger: "manual",
  startedAt,
  finishedAt: startedAt + 2_000,
  passed,
  steps: [{ name: "send", passed, ms: 12, detail: passed ? "ok" : "down" }],
});

export function observabilityBehaviour(t: StoreUnderTest): void {
  describe("observability", () => {
    it("measures the backlog: pending, oldest due, open records per endpoint", async () => {
      const empty = await t.store.backlogSnapshot({ now: T0, endpointLimit: 10 });
      expect(empty).toEqual({
        pending: 0,
        oldestDueAt: null,
        deadLetters: 0,
        oldestDeadLetterAt: null,
        lastDeadLetterClosedAt: null,
        byEndpoint: [],
      });
      const { app, endpoints } = await seedApp(t.store, [{}, {}]);
      const [a, b] = endpoints.map((e) => ({ id: e.id })) as [{ id: string }, { id: string }];
      await accept(t.store, app.id, { now: T0, dueAt: T0 + MINUTE });
      await accept(t.store, app.id, { now: T0, dueAt: T0 + HOUR });
      const at = await t.store.backlogSnapshot({ now: T0 + 2 * MINUTE, endpointLimit: 10 });
      // Four pending (two messages, two endpoints); only the first message's are due.
      expect(at).toMatchObject({ pending: 4, oldestDueAt: T0 + MINUTE, deadLetters: 0 });

      await claimAll(t.store, T0 + 2 * HOUR);
      await deadLetter(t.store, app.id, { endpointId: a.id, at: T0 + 3 * HOUR });
      await deadLetter(t.store, app.id, { endpointId: a.id, at: T0 + 4 * HOUR });
      await deadLetter(t.store, app.id, { endpointId: b.id, at: T0 + 5 * HOUR });
      const later = await t.store.backlogSnapshot({ now: T0 + 6 * HOUR, endpointLimit: 10 });
      expect(later).toMatchObject({ deadLetters: 3, oldestDeadLetterAt: T0 + 3 * HOUR });
      expect(later.byEndpoint).toEqual([
        { endpointId: a.id, deadLetters: 2, oldestDeadLetterAt: T0 + 3 * HOUR },
        { endpointId: b.id, deadLetters: 1, oldestDeadLetterAt: T0 + 5 * HOUR },
      ]);
      const top = await t.store.backlogSnapshot({ now: T0 + 6 * HOUR, endpointLimit: 1 });
      expect(top.byEndpoint.map((r) => r.endpointId)).toEqual([a.id]);
      expect(top.lastDeadLetterClosedAt).toBeNull();
    });

    it("says when a record last left the dead-letter queue, resolved or abandoned", async () => {
      const { app } = await seedApp(t.store);
      const [first, second] = [
        await deadLetter(t.store, app.id),
        await deadLetter(t.store, app.id),
      ];
      const snapshot = () => t.store.backlogSnapshot({ now: T0 + 6 * HOUR, endpointLimit: 10 });
      const decision = (id: string, now: number) => ({ id, actor: "ops", note: "done", now });
      await t.store.resolveDeadLetter(decision(first.id, T0 + HOUR));
      expect(await snapshot()).toMatchObject({ deadLetters: 1, lastDeadLetterClosedAt: T0 + HOUR });
      await t.store.abandonDeadLetter(decision(second.id, T0 + 2 * HOUR));
      expect(await snapshot()).toMatchObject({
        deadLetters: 0,
        lastDeadLetterClosedAt: T0 + 2 * HOUR,
      });
    });

    it("keeps alerts: firing and recently resolved, newest first; forgets old resolved ones", async () => {
      await saveAlerts(t.store, "wkr_a", [
        alert("alrt_1", { since: T0 }),
        alert("alrt_2", { since: T0 + MINUTE, rule: "endpoint_failing", endpointId: "ep_x" }),
      ]);
      expect((await t.store.listAlerts({ resolvedSince: T0 })).map((a) => a.id)).toEqual([
        "alrt_2",
        "alrt_1",
      ]);
      const resolved = alert("alrt_1", {
        resolvedAt: T0 + HOUR,
        value: 1.25,
        supersededBy: "alrt_9",
      });
      expect(await saveAlerts(t.store, "wkr_a", [resolved])).toEqual([]);
      const both = await t.store.listAlerts({ resolvedSince: T0 });
      expect(both.find((a) => a.id === "alrt_1")).toEqual(resolved);
      expect(both.find((a) => a.id === "alrt_2")).toEqual(
        alert("alrt_2", { since: T0 + MINUTE, rule: "endpoint_failing", endpointId: "ep_x" }),
      );
      // Resolved before the cutoff: not listed, and forgotten at the next save.
      const firingOnly = await t.store.listAlerts({ resolvedSince: T0 + 2 * HOUR });
      expect(firingOnly.map((a) => a.id)).toEqual(["alrt_2"]);
      await saveAlerts(t.store, "wkr_a", [], T0 + 2 * HOUR);
      expect((await t.store.listAlerts({ resolvedSince: 0 })).map((a) => a.id)).toEqual(["alrt_2"]);
    });

    it("writes an alert only for the worker that holds it", async () => {
      await saveAlerts(t.store, "wkr_a", [alert("alrt_1")]);
      const refused = await saveAlerts(t.store, "wkr_b", [
        alert("alrt_1", { resolvedAt: T0 + HOUR }),
        alert("alrt_2"),
      ]);
      expect(refused).toEqual(["alrt_1"]);
      expect(await t.store.listAlerts({ resolvedSince: 0 })).toEqual([
        alert("alrt_2"),
        alert("alrt_1"),
      ]);
    });

    it("takes on firing alerts held by no running worker, once; never resolved ones", async () => {
      // No worker named here is running: alerts from before a restart, or of a worker that left.
      await saveAlerts(t.store, "wkr_gone", [
        alert("alrt_1", { since: T0 }),
        alert("alrt_2", { since: T0 + MINUTE, resolvedAt: T0 + HOUR }),
      ]);
      expect(await t.store.adoptAlerts("wkr_b")).toEqual([alert("alrt_1", { since: T0 })]);
      expect(await t.store.adoptAlerts("wkr_b")).toEqual([]);
      // Now wkr_b's: it writes the alert, the worker that left no longer does.
      const ended = alert("alrt_1", { resolvedAt: T0 + 2 * HOUR });
      expect(await saveAlerts(t.store, "wkr_gone", [ended])).toEqual(["alrt_1"]);
      expect(await saveAlerts(t.store, "wkr_b", [ended])).toEqual([]);
      expect(
        (await t.store.listAlerts({ resolvedSince: 0 })).find((a) => a.id === "alrt_1"),
      ).toEqual(ended);
    });

    it("records drill runs, keeps the latest, and knows the last one that passed", async () => {
      expect(await t.store.lastPassedDrillAt()).toBeNull();
      await t.store.recordDrillRun(run("drill_1", T0, true), 2);
      await t.store.recordDrillRun(run("drill_2", T0 + HOUR, false), 2);
      expect(await t.store.lastPassedDrillAt()).toBe(T0);
      expect(await t.store.listDrillRuns(10)).toEqual([
        run("drill_2", T0 + HOUR, false),
        run("drill_1", T0, true),
      ]);
      await t.store.recordDrillRun(run("drill_3", T0 + 2 * HOUR, false), 2);
      expect((await t.store.listDrillRuns(10)).map((r) => r.id)).toEqual(["drill_3", "drill_2"]);
      expect(await t.store.lastPassedDrillAt()).toBeNull();
    });
  });
}
