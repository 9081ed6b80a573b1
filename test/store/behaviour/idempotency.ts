/** Idempotency keys: one request per key runs; repeats wait, replay, or are refused. */
import { describe, expect, it } from "vitest";
import { ConflictError } from "../../../src/errors.js";
import type { ApiToken, Application, Delivery, Endpoint } from "../../../src/domain/types.js";
import type {
  EndpointKeys,
  IdempotencyBegin,
  KeptAnswer,
  ReplayEnqueued,
} from "../../../src/store/port.js";
import { deadLetter } from "./dlq-fixtures.js";
import {
  accept,
  anApplication,
  anEndpoint,
  anEventType,
  aToken,
  claimAll,
  HOUR,
  SECOND,
  seedApp,
  succeeded,
  T0,
  type StoreUnderTest,
} from "./fixtures.js";

const LOCK = 30 * SECOND;
const TTL = 24 * HOUR;

function begin(overrides: Partial<IdempotencyBegin> = {}): IdempotencyBegin {
  return {
    scope: "app_1:POST /msg",
    key: "key-1",
    owner: "first",
    fingerprint: "sha256:aaa",
    now: T0,
    lockMs: LOCK,
    ttlMs: TTL,
    ...overrides,
  };
}

export function idempotencyBehaviour(t: StoreUnderTest): void {
  describe("idempotency keys", () => {
    it("a first request with a key is new", async () => {
      expect(await t.store.beginIdempotent(begin())).toEqual({ kind: "new" });
    });

    it("a repeat while the first is still running is in progress", async () => {
      await t.store.beginIdempotent(begin());
      expect(await t.store.beginIdempotent(begin({ now: T0 + LOCK - 1 }))).toEqual({
        kind: "in-progress",
      });
    });

    it("a repeat after the first finished replays its status and body", async () => {
      await t.store.beginIdempotent(begin());
      const body = '{"id":"msg_1","note":"héllo ✓"}';
      await t.store.finishIdempotent(begin(), 202, body);
      // Well past the lock: a finished request is replayed for as long as the key lives.
      expect(await t.store.beginIdempotent(begin({ now: T0 + LOCK * 10 }))).toEqual({
        kind: "replay",
        status: 202,
        body,
      });
    });

    it("a repeat with a different request is a mismatch, running or finished", async () => {
      await t.store.beginIdempotent(begin());
      const other = begin({ fingerprint: "sha256:bbb", now: T0 + SECOND });
      expect(await t.store.beginIdempotent(other)).toEqual({ kind: "mismatch" });
      await t.store.finishIdempotent(begin(), 202, "{}");
      expect(await t.store.beginIdempotent(other)).toEqual({ kind: "mismatch" });
    });

    it("a request left unfinished past its lock lets the next one start anew", async () => {
      await t.store.beginIdempotent(begin());
      expect(await t.store.beginIdempotent(begin({ now: T0 + LOCK }))).toEqual({ kind: "new" });
      // The new start holds the lock in its turn.
      expect(await t.store.beginIdempotent(begin({ now: T0 + LOCK + 1 }))).toEqual({
        kind: "in-progress",
      });
    });

    it("a request past its lock keeps no answer once a repeat holds the key", async () => {
      await t.store.beginIdempotent(begin());
      const repeat = begin({ owner: "repeat", now: T0 + LOCK });
      expect(await t.store.beginIdempotent(repeat)).toEqual({ kind: "new" });
      expect(await t.store.finishIdempotent(begin(), 202, '{"id":"msg_late"}')).toBe(false);
      expect(await t.store.finishIdempotent(repeat, 202, '{"id":"msg_holder"}')).toBe(true);
      expect(await t.store.finishIdempotent(begin(), 202, '{"id":"msg_late"}')).toBe(false);
      expect(await t.store.beginIdempotent(begin({ now: T0 + LOCK + 1 }))).toEqual({
        kind: "replay",
        status: 202,
        body: '{"id":"msg_holder"}',
      });
    });

    it("a request past its lock frees nothing once a repeat holds the key", async () => {
      await t.store.beginIdempotent(begin());
      const repeat = begin({ owner: "repeat", now: T0 + LOCK });
      await t.store.beginIdempotent(repeat);
      expect(await t.store.abandonIdempotent(begin())).toBe(false);
      expect(await t.store.beginIdempotent(begin({ now: T0 + LOCK + 1 }))).toEqual({
        kind: "in-progress",
      });
      expect(await t.store.abandonIdempotent(repeat)).toBe(true);
      expect(await t.store.beginIdempotent(begin({ now: T0 + LOCK + 2 }))).toEqual({
        kind: "new",
      });
    });

    it("a request past its lock that nobody took the key from still keeps its answer", async () => {
      await t.store.beginIdempotent(begin());
      expect(await t.store.finishIdempotent(begin(), 201, "{}")).toBe(true);
      expect(await t.store.beginIdempotent(begin({ now: T0 + LOCK * 2 }))).toEqual({
        kind: "replay",
        status: 201,
        body: "{}",
      });
    });

    it("a key is forgotten after its time to live", async () => {
      await t.store.beginIdempotent(begin());
      await t.store.finishIdempotent(begin(), 202, "{}");
      const later = begin({ fingerprint: "sha256:bbb", now: T0 + TTL });
      expect(await t.store.beginIdempotent(later)).toEqual({ kind: "new" });
    });

    it("an abandoned request lets the next one start anew", async () => {
      await t.store.beginIdempotent(begin());
      await t.store.abandonIdempotent(begin());
      expect(await t.store.beginIdempotent(begin({ now: T0 + 1 }))).toEqual({ kind: "new" });
    });

    it("of requests with one key at once, exactly one is new", async () => {
      const states = await Promise.all([1, 2, 3, 4].map(() => t.store.beginIdempotent(begin())));
      expect(states.filter((s) => s.kind === "new")).toHaveLength(1);
      expect(states.filter((s) => s.kind === "in-progress")).toHaveLength(3);
    });

    it("keys of different scopes do not meet", async () => {
      await t.store.beginIdempotent(begin());
      await t.store.finishIdempotent(begin(), 202, "{}");
      expect(await t.store.beginIdempotent(begin({ scope: "app_2:POST /msg" }))).toEqual({
        kind: "new",
      });
    });

    it("forgets the keys of the scopes named and of those under a prefix, and no others", async () => {
      const { app } = await seedApp(t.store);
      const scopes = [
        "admin:POST /api/v1/app/acme/msg",
        "admin:POST /api/v1/app/acme/endpoint/ep_1/recover",
        "admin:POST /api/v1/auth/app-portal-access/acme",
        // Beside them in the key's order, of other applications: kept.
        "admin:POST /api/v1/app/acme-2/msg",
        "admin:POST /api/v1/app/acme0/msg",
        "admin:POST /api/v1/app/acm/msg",
        "admin:POST /api/v1/auth/app-portal-access/acme-2",
      ];
      for (const scope of scopes) {
        await t.store.beginIdempotent(begin({ scope }));
        await t.store.finishIdempotent(begin({ scope }), 202, "{}");
      }
      await t.store.deleteApplication(app.id, {
        exact: ["admin:POST /api/v1/auth/app-portal-access/acme"],
        prefixes: ["admin:POST /api/v1/app/acme/"],
      });
      const states = [];
      for (const scope of scopes) {
        states.push((await t.store.beginIdempotent(begin({ scope, now: T0 + 1 }))).kind);
      }
      expect(states).toEqual(["new", "new", "new", "replay", "replay", "replay", "replay"]);
    });

    it("deleting an application forgets the keys it is given, in the same transaction", async () => {
      const { app } = await seedApp(t.store);
      const mine = `admin:POST /api/v1/app/${app.id}/msg`;
      const other = "admin:POST /api/v1/app/app_other/msg";
      for (const scope of [mine, other]) {
        await t.store.beginIdempotent(begin({ scope }));
        await t.store.finishIdempotent(begin({ scope }), 202, "{}");
      }
      await t.store.deleteApplication(app.id, {
        exact: [],
        prefixes: [`admin:POST /api/v1/app/${app.id}/`],
      });
      expect(await t.store.findApplication(app.id)).toBeNull();
      expect((await t.store.beginIdempotent(begin({ scope: mine, now: T0 + 1 }))).kind).toBe("new");
      expect((await t.store.beginIdempotent(begin({ scope: other, now: T0 + 1 }))).kind).toBe(
        "replay",
      );
    });

    it("deleting an application: keys it cannot forget leave it, with its endpoints", async () => {
      const { app, endpoints } = await seedApp(t.store, [{ uid: "my-ep" }]);
      const mine = `admin:POST /api/v1/app/${app.id}/msg`;
      await t.store.beginIdempotent(begin({ scope: mine }));
      await t.store.finishIdempotent(begin({ scope: mine }), 202, "{}");
      // The forget fails after the application's rows are deleted: only the transaction brings
      // them back.
      const unforgettable = { exact: [], prefixes: [`admin:POST /api/v1/app/${app.id}\u0001`] };
      await expect(t.store.deleteApplication(app.id, unforgettable)).rejects.toThrow();
      expect(await t.store.findApplication(app.id)).toEqual(app);
      expect(await t.store.getEndpoint(endpoints[0]!.id)).toEqual(endpoints[0]);
      expect((await t.store.beginIdempotent(begin({ scope: mine, now: T0 + 1 }))).kind).toBe(
        "replay",
      );
    });

    describe("a write that keeps its key's answer in its own transaction", () => {
      const held = { scope: "admin:POST /api/v1/app/x/endpoint", key: "key-1", owner: "first" };
      const keep = <R>(told: R[]): KeptAnswer<R> => ({
        held,
        answer: (written) => {
          told.push(written);
          return { status: 201, body: '{"made":true}' };
        },
      });
      const refusing = <R>(): KeptAnswer<R> => ({
        held,
        answer: () => {
          throw new Error("the answer could not be made");
        },
      });
      const state = () => t.store.beginIdempotent(begin({ ...held, owner: "retry", now: T0 + 1 }));

      it("an endpoint's creation: replayed to the retry, told the endpoint as written", async () => {
        const app = await t.store.createApplication(anApplication());
        await t.store.beginIdempotent(begin(held));
        const ep = anEndpoint(app.id);
        const told: Endpoint[] = [];
        expect(await t.store.createEndpoint(ep, keep(told))).toEqual(ep);
        expect(told).toEqual([ep]);
        expect(await state()).toEqual({ kind: "replay", status: 201, body: '{"made":true}' });
      });

      it("a key whose answer a write kept is not freed by its request failing after", async () => {
        // A COMMIT whose answer was lost, the check that it landed failing too: the request is
        // answered 503 and frees its key once the store is back. The endpoint was made: freed,
        // the key would let the client's retry make a second one.
        const app = await t.store.createApplication(anApplication());
        await t.store.beginIdempotent(begin(held));
        await t.store.createEndpoint(anEndpoint(app.id), keep<Endpoint>([]));
        expect(await t.store.abandonIdempotent(held)).toBe(false);
        expect(await state()).toEqual({ kind: "replay", status: 201, body: '{"made":true}' });
      });

      it("an endpoint whose answer cannot be kept is not made, and its key still runs", async () => {
        const app = await t.store.createApplication(anApplication());
        await t.store.beginIdempotent(begin(held));
        const ep = anEndpoint(app.id);
        await expect(t.store.createEndpoint(ep, refusing())).rejects.toThrow();
        expect(await t.store.getEndpoint(ep.id)).toBeNull();
        expect(await state()).toEqual({ kind: "in-progress" });
      });

      it("an application's creation, kept or not made", async () => {
        await t.store.beginIdempotent(begin(held));
        const refused = anApplication();
        await expect(t.store.createApplication(refused, refusing())).rejects.toThrow();
        expect(await t.store.findApplication(refused.id)).toBeNull();
        const app = anApplication();
        const told: Application[] = [];
        await t.store.createApplication(app, keep(told));
        expect(told).toEqual([app]);
        expect(await state()).toEqual({ kind: "replay", status: 201, body: '{"made":true}' });
      });

      it("an API token's creation, kept or not made", async () => {
        await t.store.beginIdempotent(begin(held));
        const refused = aToken({ hash: "a".repeat(64) });
        await expect(t.store.createApiToken(refused, refusing())).rejects.toThrow();
        expect(await t.store.findApiTokenByHash(refused.hash)).toBeNull();
        const token = aToken({ hash: "b".repeat(64) });
        const told: ApiToken[] = [];
        await t.store.createApiToken(token, keep(told));
        expect(told).toEqual([token]);
        expect(await state()).toEqual({ kind: "replay", status: 201, body: '{"made":true}' });
      });

      it("a resend, kept or not written; one that finds nothing keeps none", async () => {
        const { app, endpoints } = await seedApp(t.store);
        const msg = (await accept(t.store, app.id)).message;
        for (const d of await claimAll(t.store, T0)) {
          await t.store.recordAttempts([succeeded(d, T0)]);
        }
        await t.store.beginIdempotent(begin(held));
        const resend = (id: string, keyAnswer: KeptAnswer<Delivery | null>, messageId = msg.id) =>
          t.store.enqueueResend({
            id,
            appId: app.id,
            messageId,
            endpointId: endpoints[0]!.id,
            now: T0 + 1,
            keyAnswer,
          });
        const resent = async () =>
          (await t.store.listDeliveries(msg.id)).filter((d) => d.origin === "resend");

        await expect(resend("dlv_refused", refusing())).rejects.toThrow();
        expect(await resent()).toEqual([]);

        const none: (Delivery | null)[] = [];
        const gone = { held, answer: (d: Delivery | null) => (none.push(d), null) };
        expect(await resend("dlv_none", gone, "msg_gone")).toBeNull();
        expect(none).toEqual([null]);
        expect(await state()).toEqual({ kind: "in-progress" });

        const told: (Delivery | null)[] = [];
        const made = await resend("dlv_kept", keep(told));
        expect(made?.id).toBe("dlv_kept");
        expect(told).toEqual([made]);
        expect((await resent()).map((d) => d.id)).toEqual(["dlv_kept"]);
        expect(await state()).toEqual({ kind: "replay", status: 201, body: '{"made":true}' });
      });

      it("a single replay, kept or not queued; one refused keeps none", async () => {
        const { app } = await seedApp(t.store);
        const record = await deadLetter(t.store, app.id);
        await t.store.beginIdempotent(begin(held));
        const replay = (deliveryId: string, keyAnswer: KeptAnswer<ReplayEnqueued>) =>
          t.store.enqueueReplay(
            {
              deadLetterId: record.id,
              deliveryId,
              now: T0 + 2 * SECOND,
              actor: "ops",
              note: null,
              abandonAfter: null,
            },
            keyAnswer,
          );
        const replays = async () =>
          (await t.store.listDeliveries(record.messageId)).filter((d) => d.origin === "replay");

        await expect(replay("dlv_refused", refusing())).rejects.toThrow();
        expect(await replays()).toEqual([]);
        expect((await t.store.getDeadLetter(record.id))?.state).toBe("open");

        const told: ReplayEnqueued[] = [];
        const queued = await replay("dlv_kept", keep(told));
        expect(queued.ok && queued.delivery.id).toBe("dlv_kept");
        expect(told).toEqual([queued]);
        expect((await replays()).map((d) => d.id)).toEqual(["dlv_kept"]);
        expect(await state()).toEqual({ kind: "replay", status: 201, body: '{"made":true}' });

        // Refused (a replay is out already): told so, and nothing more is kept or queued.
        const none: ReplayEnqueued[] = [];
        const busy = { held, answer: (r: ReplayEnqueued) => (none.push(r), null) };
        expect((await replay("dlv_busy", busy)).ok).toBe(false);
        expect(none.map((r) => r.ok)).toEqual([false]);
        expect((await replays()).map((d) => d.id)).toEqual(["dlv_kept"]);
      });
    });

    describe("changing an application forgets the keys it is given", () => {
      const given = {
        exact: ["admin:POST /api/v1/app for app acme"],
        prefixes: ["admin:POST /api/v1/app/acme/"],
      };
      const mine = ["admin:POST /api/v1/app for app acme", "admin:POST /api/v1/app/acme/msg"];
      const other = "admin:POST /api/v1/app/acme-2/msg";
      /** Each key, begun again: "new" once forgotten, "replay" while kept. */
      const states = async () => {
        const kinds = [];
        for (const scope of [...mine, other]) {
          kinds.push((await t.store.beginIdempotent(begin({ scope, now: T0 + 1 }))).kind);
        }
        return kinds;
      };
      const answered = async () => {
        for (const scope of [...mine, other]) {
          await t.store.beginIdempotent(begin({ scope }));
          await t.store.finishIdempotent(begin({ scope }), 201, "{}");
        }
      };
      const acme = () => t.store.createApplication(anApplication({ uid: "acme" }));

      it("as it writes the change", async () => {
        const app = await acme();
        await answered();
        const renamed = { ...app, uid: "acme-old", updatedAt: app.updatedAt + 1 };
        expect(await t.store.updateApplication(renamed, app.updatedAt, given)).toBe(true);
        expect(await t.store.findApplication("acme-old")).toEqual(renamed);
        expect(await states()).toEqual(["new", "new", "replay"]);
      });

      it("and none when the change is not written", async () => {
        const app = await acme();
        await answered();
        // Another write came in between: this one is not made, and forgets nothing.
        const first = { ...app, name: "First", updatedAt: app.updatedAt + 1 };
        expect(await t.store.updateApplication(first, app.updatedAt)).toBe(true);
        const stale = { ...app, uid: "acme-old", updatedAt: app.updatedAt + 2 };
        expect(await t.store.updateApplication(stale, app.updatedAt, given)).toBe(false);
        // The uid asked for is another application's.
        await t.store.createApplication(anApplication({ uid: "taken" }));
        const clash = { ...first, uid: "taken", updatedAt: first.updatedAt + 1 };
        await expect(
          t.store.updateApplication(clash, first.updatedAt, given),
        ).rejects.toBeInstanceOf(ConflictError);
        expect(await t.store.findApplication("acme")).toEqual(first);
        expect(await states()).toEqual(["replay", "replay", "replay"]);
      });

      it("in the change's transaction: keys it cannot forget leave the change unwritten", async () => {
        const app = await acme();
        await answered();
        // A prefix no scope range can be made of fails as the keys are forgotten, after the write.
        const unforgettable = { exact: [], prefixes: ["admin:POST /api/v1/app/acme\u0001"] };
        const renamed = { ...app, uid: "acme-old", updatedAt: app.updatedAt + 1 };
        await expect(
          t.store.updateApplication(renamed, app.updatedAt, unforgettable),
        ).rejects.toThrow();
        expect(await t.store.findApplication("acme")).toEqual(app);
        expect(await t.store.findApplication("acme-old")).toBeNull();
        expect(await states()).toEqual(["replay", "replay", "replay"]);
      });
    });

    describe("an endpoint forgets the keys it is given, told its application's tokens", () => {
      const mine = [
        "admin:POST /api/v1/app/acme/endpoint for endpoint my-ep",
        "admin:POST /api/v1/app/acme/endpoint/my-ep/recover",
        "app tok_mine:POST /api/v1/app/acme/endpoint/my-ep/recover",
      ];
      const others = [
        "admin:POST /api/v1/app/acme/endpoint/my-ep-2/recover",
        "app tok_other:POST /api/v1/app/acme/endpoint/my-ep/recover",
      ];
      /** The keys of my-ep, as the API gives them: by an admin or one of the tokens it is told. */
      const given = (told: string[][], now = T0): EndpointKeys => ({
        now,
        scopes: (tokenIds) => {
          told.push([...tokenIds].sort());
          const whos = ["admin", ...tokenIds.map((id) => `app ${id}`)];
          return {
            exact: ["admin:POST /api/v1/app/acme/endpoint for endpoint my-ep"],
            prefixes: whos.map((who) => `${who}:POST /api/v1/app/acme/endpoint/my-ep/`),
          };
        },
      });
      const unforgettable: EndpointKeys = {
        now: T0,
        scopes: () => ({
          exact: [],
          prefixes: ["admin:POST /api/v1/app/acme/endpoint/my-ep\u0001"],
        }),
      };
      /** my-ep in an application with one token, beside another application with its own. */
      const seeded = async () => {
        const { app, endpoints } = await seedApp(t.store, [{ uid: "my-ep" }]);
        const other = await t.store.createApplication(anApplication());
        await t.store.createApiToken(aToken({ id: "tok_mine", scope: "app", appId: app.id }));
        await t.store.createApiToken(aToken({ id: "tok_other", scope: "app", appId: other.id }));
        for (const scope of [...mine, ...others]) {
          await t.store.beginIdempotent(begin({ scope }));
          await t.store.finishIdempotent(begin({ scope }), 201, "{}");
        }
        return { app, ep: endpoints[0]! };
      };
      /** Each key, begun again: "new" once forgotten, "replay" while kept. */
      const states = async () => {
        const kinds = [];
        for (const scope of [...mine, ...others]) {
          kinds.push((await t.store.beginIdempotent(begin({ scope, now: T0 + 1 }))).kind);
        }
        return kinds;
      };
      const FORGOTTEN = ["new", "new", "new", "replay", "replay"];
      const KEPT = ["replay", "replay", "replay", "replay", "replay"];

      it("as it is deleted", async () => {
        const { app, ep } = await seeded();
        const told: string[][] = [];
        await t.store.deleteEndpoint(app.id, ep.id, given(told));
        expect(await t.store.getEndpoint(ep.id)).toBeNull();
        expect(told).toEqual([["tok_mine"]]);
        expect(await states()).toEqual(FORGOTTEN);
      });

      it("told only the tokens that may still send: an expired one's keys answer no one", async () => {
        const { app, ep } = await seeded();
        // Portal links are tokens that expire: the forget reads none of those past their expiry
        // (refused from that instant on), however many there are.
        const expiring = (id: string, expiresAt: number) =>
          t.store.createApiToken(aToken({ id, scope: "app", appId: app.id, expiresAt }));
        await expiring("tok_expired", T0 + HOUR - 1);
        await expiring("tok_expiring_now", T0 + HOUR);
        await expiring("tok_still_valid", T0 + HOUR + 1);
        await t.store.createApiToken(
          aToken({ id: "tok_revoked", scope: "app", appId: app.id, revokedAt: T0 }),
        );
        const expired = "app tok_expired:POST /api/v1/app/acme/endpoint/my-ep/recover";
        await t.store.beginIdempotent(begin({ scope: expired }));
        await t.store.finishIdempotent(begin({ scope: expired }), 202, "{}");
        const told: string[][] = [];
        await t.store.deleteEndpoint(app.id, ep.id, given(told, T0 + HOUR));
        expect(told).toEqual([["tok_mine", "tok_still_valid"]]);
        expect(await t.store.getEndpoint(ep.id)).toBeNull();
        expect(await states()).toEqual(FORGOTTEN);
        // Left to expire with its day: the token that took it is refused, so it replays for no one.
        const left = await t.store.beginIdempotent(begin({ scope: expired, now: T0 + 1 }));
        expect(left.kind).toBe("replay");
      });

      it("and none when it is another application's, and not deleted", async () => {
        const { ep } = await seeded();
        const told: string[][] = [];
        const other = await t.store.createApplication(anApplication());
        await t.store.deleteEndpoint(other.id, ep.id, given(told));
        expect(await t.store.getEndpoint(ep.id)).not.toBeNull();
        expect(told).toEqual([]);
        expect(await states()).toEqual(KEPT);
      });

      it("in the deletion's transaction: keys it cannot forget leave the endpoint", async () => {
        const { app, ep } = await seeded();
        // The forget fails after the endpoint's rows are deleted: only the transaction brings
        // them back.
        await expect(t.store.deleteEndpoint(app.id, ep.id, unforgettable)).rejects.toThrow();
        expect(await t.store.getEndpoint(ep.id)).toEqual(ep);
        expect(await states()).toEqual(KEPT);
      });

      it("as a change giving up its uid is written", async () => {
        const { ep } = await seeded();
        const told: string[][] = [];
        const renamed = { ...ep, uid: "my-ep-old", updatedAt: ep.updatedAt + 1 };
        expect(await t.store.updateEndpoint(renamed, ep.updatedAt, given(told))).toBe(true);
        expect((await t.store.getEndpoint(ep.id))?.uid).toBe("my-ep-old");
        expect(told).toEqual([["tok_mine"]]);
        expect(await states()).toEqual(FORGOTTEN);
      });

      it("and none when the change is not written", async () => {
        const { ep } = await seeded();
        const told: string[][] = [];
        const first = { ...ep, description: "first", updatedAt: ep.updatedAt + 1 };
        expect(await t.store.updateEndpoint(first, ep.updatedAt)).toBe(true);
        const stale = { ...ep, uid: "my-ep-old", updatedAt: ep.updatedAt + 2 };
        expect(await t.store.updateEndpoint(stale, ep.updatedAt, given(told))).toBe(false);
        expect(told).toEqual([]);
        expect((await t.store.getEndpoint(ep.id))?.uid).toBe("my-ep");
        expect(await states()).toEqual(KEPT);
      });

      it("in the change's transaction: keys it cannot forget leave the change unwritten", async () => {
        const { ep } = await seeded();
        const renamed = { ...ep, uid: "my-ep-old", updatedAt: ep.updatedAt + 1 };
        await expect(
          t.store.updateEndpoint(renamed, ep.updatedAt, unforgettable),
        ).rejects.toThrow();
        expect((await t.store.getEndpoint(ep.id))?.uid).toBe("my-ep");
        expect(await states()).toEqual(KEPT);
      });
    });

    describe("an event type forgets the keys it is given", () => {
      const mine = "admin:POST /api/v1/event-type for event type user.created";
      const other = "admin:POST /api/v1/event-type for event type user.deleted";
      const given = { exact: [mine], prefixes: [] };
      const unforgettable = { exact: [], prefixes: [`${mine}\u0001`] };
      const seeded = async () => {
        const et = await t.store.createEventType(anEventType("user.created"));
        for (const scope of [mine, other]) {
          await t.store.beginIdempotent(begin({ scope }));
          await t.store.finishIdempotent(begin({ scope }), 201, "{}");
        }
        return et;
      };
      const states = async () => {
        const kinds = [];
        for (const scope of [mine, other]) {
          kinds.push((await t.store.beginIdempotent(begin({ scope, now: T0 + 1 }))).kind);
        }
        return kinds;
      };

      it("as it is deleted", async () => {
        await seeded();
        await t.store.deleteEventType("user.created", given);
        expect(await t.store.findEventType("user.created")).toBeNull();
        expect(await states()).toEqual(["new", "replay"]);
      });

      it("and none when there was none to delete", async () => {
        await seeded();
        await t.store.deleteEventType("user.created");
        await t.store.deleteEventType("user.created", given);
        expect(await states()).toEqual(["replay", "replay"]);
      });

      it("as a change is written, and none when it is not", async () => {
        const et = await seeded();
        const archived = { ...et, archived: true, updatedAt: et.updatedAt + 1 };
        expect(await t.store.updateEventType(archived, et.updatedAt + 5, given)).toBe(false);
        expect(await states()).toEqual(["replay", "replay"]);
        expect(await t.store.updateEventType(archived, et.updatedAt, given)).toBe(true);
        expect(await t.store.findEventType("user.created")).toEqual(archived);
        expect(await states()).toEqual(["new", "replay"]);
      });

      it("in the change's transaction: keys it cannot forget leave it as it was", async () => {
        const et = await seeded();
        const archived = { ...et, archived: true, updatedAt: et.updatedAt + 1 };
        await expect(
          t.store.updateEventType(archived, et.updatedAt, unforgettable),
        ).rejects.toThrow();
        await expect(t.store.deleteEventType(et.name, unforgettable)).rejects.toThrow();
        expect(await t.store.findEventType("user.created")).toEqual(et);
        expect(await states()).toEqual(["replay", "replay"]);
      });
    });
  });
}
