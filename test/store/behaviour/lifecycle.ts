/** Health and shutdown: a closed store refuses work with StoreUnavailableError. */
import { describe, expect, it } from "vitest";
import { StoreUnavailableError } from "../../../src/errors.js";
import { newId } from "../../../src/ids.js";
import type { Store } from "../../../src/store/port.js";
import {
  accept,
  anApplication,
  anEventType,
  claimAll,
  only,
  SECOND,
  seedApp,
  succeeded,
  T0,
  type StoreUnderTest,
} from "./fixtures.js";

export function lifecycleBehaviour(t: StoreUnderTest): void {
  describe("lifecycle", () => {
    it("answers a ping while open", async () => {
      await expect(t.store.ping()).resolves.toBeUndefined();
    });

    it("refuses every operation with StoreUnavailableError once closed", async () => {
      const { app, endpoints } = await seedApp(t.store);
      await accept(t.store, app.id);
      const claimed = only(await claimAll(t.store, T0));
      await t.store.close();

      const calls: [string, (s: Store) => Promise<unknown>][] = [
        ["ping", (s) => s.ping()],
        ["createApplication", (s) => s.createApplication(anApplication())],
        ["findApplication", (s) => s.findApplication(app.id)],
        ["listApplications", (s) => s.listApplications({ limit: 10 })],
        ["findEndpoint", (s) => s.findEndpoint(app.id, endpoints[0]!.id)],
        ["createEventType", (s) => s.createEventType(anEventType("x.y"))],
        [
          "beginIdempotent",
          (s) =>
            s.beginIdempotent({
              scope: "s",
              key: "k",
              owner: "o",
              fingerprint: "f",
              now: T0,
              lockMs: 1,
              ttlMs: 1,
            }),
        ],
        ["acceptMessage", (s) => accept(s, app.id)],
        ["listMessages", (s) => s.listMessages(app.id, { limit: 10 })],
        ["claimDue", (s) => claimAll(s, T0)],
        ["nextDueAt", (s) => s.nextDueAt([])],
        ["recordAttempts", (s) => s.recordAttempts([succeeded(claimed, T0 + SECOND)])],
        ["releaseDeliveries", (s) => s.releaseDeliveries([{ deliveryId: claimed.id, at: T0 }])],
        ["recoverInflight", (s) => s.recoverInflight(T0)],
        [
          "enqueueResend",
          (s) =>
            s.enqueueResend({
              id: newId("dlv"),
              appId: app.id,
              messageId: claimed.messageId,
              endpointId: claimed.endpointId,
              now: T0,
            }),
        ],
        ["getDelivery", (s) => s.getDelivery(claimed.id)],
        ["getCircuit", (s) => s.getCircuit(claimed.endpointId)],
        ["listAttempts", (s) => s.listAttempts({ appId: app.id, limit: 10 })],
        ["listDeadLetters", (s) => s.listDeadLetters({ limit: 10 })],
        ["getDeadLetterRecord", (s) => s.getDeadLetterRecord("dlq_x")],
        ["deadLetterSummary", (s) => s.deadLetterSummary({})],
        [
          "enqueueReplay",
          (s) =>
            s.enqueueReplay({
              deadLetterId: "dlq_x",
              deliveryId: newId("dlv"),
              now: T0,
              actor: "ops",
              note: null,
              abandonAfter: null,
            }),
        ],
        [
          "claimReplayJobs",
          (s) => s.claimReplayJobs({ now: T0, leaseUntil: T0, limit: 1, runner: "rnr_a" }),
        ],
        ["pruneExpired", (s) => s.pruneExpired({ now: T0, retentionMs: 1, batchSize: 1 })],
      ];
      const wrong: string[] = [];
      for (const [name, call] of calls) {
        const error = await call(t.store).then(
          () => new Error("resolved"),
          (err: unknown) => err,
        );
        if (!(error instanceof StoreUnavailableError)) wrong.push(`${name}: ${String(error)}`);
      }
      expect(wrong).toEqual([]);
    });
  });
}
