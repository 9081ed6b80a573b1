/** Read models over what happened: the attempt log and the dead-letter list. */
import { describe, expect, it } from "vitest";
import type { Attempt } from "../../../src/domain/types.js";
import type { ClaimedDelivery } from "../../../src/store/port.js";
import {
  accept,
  aFailedAttempt,
  allPages,
  anAttempt,
  claimAll,
  HOUR,
  outcomeFor,
  SECOND,
  seedApp,
  T0,
  type StoreUnderTest,
} from "./fixtures.js";

export function historyBehaviour(t: StoreUnderTest): void {
  describe("listAttempts", () => {
    /**
     * Two messages to two endpoints; attempts recorded one second apart in this order:
     * m1→e1 success, m1→e2 HTTP 500, m2→e1 HTTP 429, m2→e2 success. m1 is an `a.happened` on
     * channel `eu` tagged `vip`, m2 a `b.happened` on channel `us` with no tags.
     */
    async function fourAttempts() {
      const { app, endpoints } = await seedApp(t.store, [{}, {}]);
      const [e1, e2] = endpoints.map((e) => e.id) as [string, string];
      const m1 = (
        await accept(t.store, app.id, {
          now: T0,
          eventType: "a.happened",
          channels: ["eu"],
          tags: ["vip"],
        })
      ).message.id;
      const m2 = (
        await accept(t.store, app.id, { now: T0, eventType: "b.happened", channels: ["us"] })
      ).message.id;
      const claimed = await claimAll(t.store, T0);
      const pick = (m: string, e: string): ClaimedDelivery =>
        claimed.find((d) => d.messageId === m && d.endpointId === e)!;
      const plan = [
        { d: pick(m1, e1), status: 200, outcome: "success" },
        { d: pick(m1, e2), status: 500, outcome: "retryable" },
        { d: pick(m2, e1), status: 429, outcome: "rate_limited" },
        { d: pick(m2, e2), status: 200, outcome: "success" },
      ] as const;
      const recorded: Attempt[] = [];
      for (const [i, step] of plan.entries()) {
        const at = T0 + (i + 1) * SECOND;
        const attempt =
          step.outcome === "success"
            ? anAttempt(at)
            : aFailedAttempt(at, { status: step.status, outcome: step.outcome });
        const next =
          step.outcome === "success"
            ? ({ kind: "succeeded" } as const)
            : ({ kind: "retry", at: at + HOUR, delayMs: HOUR } as const);
        await t.store.recordAttempts([outcomeFor(step.d, { at, attempt, next })]);
        recorded.push({
          ...attempt,
          deliveryId: step.d.id,
          appId: app.id,
          messageId: step.d.messageId,
          endpointId: step.d.endpointId,
        });
      }
      const other = await seedApp(t.store);
      await accept(t.store, other.app.id, { now: T0 });
      const otherClaimed = await claimAll(t.store, T0);
      await t.store.recordAttempts(
        otherClaimed.map((d) =>
          outcomeFor(d, { at: T0 + 9 * SECOND, next: { kind: "succeeded" } }),
        ),
      );
      return { app, e1, e2, m1, m2, recorded };
    }

    const ids = (page: { data: Attempt[] }) => page.data.map((a) => a.id);

    it("lists an application's attempts newest first", async () => {
      const { app, recorded } = await fourAttempts();
      const page = await t.store.listAttempts({ appId: app.id, limit: 10 });
      expect(page.data).toEqual([...recorded].reverse());
      expect(page.done).toBe(true);
    });

    it("filters attempts by endpoint and by message", async () => {
      const { app, e1, m1, recorded } = await fourAttempts();
      const [a1, a2, a3] = recorded.map((a) => a.id);
      expect(ids(await t.store.listAttempts({ appId: app.id, endpointId: e1, limit: 10 }))).toEqual(
        [a3, a1],
      );
      expect(ids(await t.store.listAttempts({ appId: app.id, messageId: m1, limit: 10 }))).toEqual([
        a2,
        a1,
      ]);
      expect(
        ids(
          await t.store.listAttempts({ appId: app.id, endpointId: e1, messageId: m1, limit: 10 }),
        ),
      ).toEqual([a1]);
    });

    it("filters attempts by outcome: success, or any failure", async () => {
      const { app, recorded } = await fourAttempts();
      const [a1, a2, a3, a4] = recorded.map((a) => a.id);
      expect(
        ids(await t.store.listAttempts({ appId: app.id, outcome: "success", limit: 10 })),
      ).toEqual([a4, a1]);
      expect(
        ids(await t.store.listAttempts({ appId: app.id, outcome: "fail", limit: 10 })),
      ).toEqual([a3, a2]);
    });

    it("filters attempts by the class of the HTTP status answered, or by none", async () => {
      const { app, recorded } = await fourAttempts();
      const [a1, a2, a3, a4] = recorded.map((a) => a.id);
      const byClass = async (statusCodeClass: 0 | 200 | 400 | 500) =>
        ids(await t.store.listAttempts({ appId: app.id, statusCodeClass, limit: 10 }));
      expect(await byClass(200)).toEqual([a4, a1]);
      expect(await byClass(400)).toEqual([a3]);
      expect(await byClass(500)).toEqual([a2]);
      expect(await byClass(0)).toEqual([]);
    });

    it("filters attempts by their message's event types, channel and tag", async () => {
      const { app, e1, recorded } = await fourAttempts();
      const [a1, a2, a3, a4] = recorded.map((a) => a.id);
      const list = async (filter: object) =>
        ids(await t.store.listAttempts({ appId: app.id, limit: 10, ...filter }));
      expect(await list({ eventTypes: ["b.happened", "c.happened"] })).toEqual([a4, a3]);
      expect(await list({ channel: "eu" })).toEqual([a2, a1]);
      expect(await list({ tag: "vip", endpointId: e1 })).toEqual([a1]);
      expect(await list({ tag: "vip", channel: "us" })).toEqual([]);
    });

    it("filters attempts by time with before and after", async () => {
      const { app, recorded } = await fourAttempts();
      const [, a2, a3] = recorded.map((a) => a.id);
      const page = await t.store.listAttempts({
        appId: app.id,
        after: T0 + 1.5 * SECOND,
        before: T0 + 3.5 * SECOND,
        limit: 10,
      });
      expect(ids(page)).toEqual([a3, a2]);
    });

    it("pages through attempts in either order", async () => {
      const { app, recorded } = await fourAttempts();
      const first = await t.store.listAttempts({ appId: app.id, limit: 3 });
      expect(first.data).toHaveLength(3);
      expect(first.done).toBe(false);
      const newest = await allPages((q) => t.store.listAttempts({ ...q, appId: app.id }), {
        limit: 3,
      });
      expect(newest.items.map((a) => a.id)).toEqual(recorded.map((a) => a.id).reverse());
      const oldest = await allPages((q) => t.store.listAttempts({ ...q, appId: app.id }), {
        limit: 3,
        order: "ascending",
      });
      expect(oldest.items.map((a) => a.id)).toEqual(recorded.map((a) => a.id));
    });
  });

  describe("listDeadLetters", () => {
    it("lists dead letters by application and by endpoint, page by page", async () => {
      const { app, endpoints } = await seedApp(t.store, [{}, {}]);
      const other = await seedApp(t.store);
      for (let i = 0; i < 3; i++) await accept(t.store, app.id, { now: T0 + i });
      await accept(t.store, other.app.id);
      const claimed = await claimAll(t.store, T0 + SECOND);
      const at = T0 + 2 * SECOND;
      // One at a time, so dead-letter ids follow the order of `claimed`.
      for (const d of claimed) {
        await t.store.recordAttempts([
          outcomeFor(d, {
            at,
            attempt: aFailedAttempt(at, { status: 400, outcome: "permanent" }),
            next: { kind: "dead", failureClass: "permanent", reason: "HTTP 400" },
          }),
        ]);
      }
      const ofApp = claimed.filter((d) => d.appId === app.id).map((d) => d.id);
      const walk = await allPages((q) => t.store.listDeadLetters({ ...q, appId: app.id }), {
        limit: 4,
        order: "ascending",
      });
      expect(walk.items.map((dl) => dl.deliveryId)).toEqual(ofApp);
      expect(walk.pages).toBe(2);

      const e2 = endpoints[1]!.id;
      const ofEndpoint = await t.store.listDeadLetters({
        endpointId: e2,
        limit: 10,
        order: "ascending",
      });
      expect(ofEndpoint.data.map((dl) => dl.deliveryId)).toEqual(
        claimed.filter((d) => d.endpointId === e2).map((d) => d.id),
      );
      const everything = await t.store.listDeadLetters({ limit: 100 });
      expect(everything.data).toHaveLength(7);

      // A message's records, at each endpoint it went to, and no other message's.
      const msg = claimed[0]!.messageId;
      const ofMessage = await t.store.listDeadLetters({ messageId: msg, limit: 10 });
      expect(ofMessage.data.map((dl) => dl.deliveryId).sort()).toEqual(
        claimed
          .filter((d) => d.messageId === msg)
          .map((d) => d.id)
          .sort(),
      );
      expect(ofMessage.data).toHaveLength(2);
    });
  });
}
