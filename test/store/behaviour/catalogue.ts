/** Applications, endpoints and event types: what the API creates, finds, lists and deletes. */
import { describe, expect, it } from "vitest";
import { ConflictError } from "../../../src/errors.js";
import type { ApplicationFilter } from "../../../src/store/port.js";
import {
  accept,
  allPages,
  anApplication,
  anEndpoint,
  anEventType,
  claimAll,
  HOUR,
  outcomeFor,
  retried,
  SECOND,
  seedApp,
  succeeded,
  T0,
  type StoreUnderTest,
} from "./fixtures.js";

export function catalogueBehaviour(t: StoreUnderTest): void {
  describe("applications", () => {
    it("creates an application and finds it by id and by uid", async () => {
      const app = anApplication({
        uid: "acme",
        rateLimit: 50,
        metadata: { plan: "gold", région: "eu ✓" },
        deliveryPolicy: { concurrencyLimit: 4, timeoutMs: 10_000, permanentStatuses: [410] },
      });
      await t.store.createApplication(app);
      expect(await t.store.findApplication(app.id)).toEqual(app);
      expect(await t.store.findApplication("acme")).toEqual(app);
      expect(await t.store.findApplication("nobody")).toBeNull();
    });

    it("finds by id before another application's uid equal to it, endpoints too", async () => {
      const first = await t.store.createApplication(anApplication());
      const second = await t.store.createApplication(anApplication({ uid: first.id }));
      expect((await t.store.findApplication(first.id))?.id).toBe(first.id);
      const ep = await t.store.createEndpoint(anEndpoint(second.id));
      const twin = await t.store.createEndpoint(anEndpoint(second.id, { uid: ep.id }));
      expect((await t.store.findEndpoint(second.id, ep.id))?.id).toBe(ep.id);
      expect((await t.store.findEndpoint(second.id, twin.id))?.id).toBe(twin.id);
    });

    it("keeps JSON fields as written: key order and escaped characters", async () => {
      const app = anApplication({ metadata: { zeta: "last\u0000first", alpha: "ü ✓", "10": "n" } });
      await t.store.createApplication(app);
      const found = await t.store.findApplication(app.id);
      expect(JSON.stringify(found?.metadata)).toBe(JSON.stringify(app.metadata));
    });

    it("allows many applications without a uid", async () => {
      const a = await t.store.createApplication(anApplication());
      const b = await t.store.createApplication(anApplication());
      expect(await t.store.findApplication(a.id)).toEqual(a);
      expect(await t.store.findApplication(b.id)).toEqual(b);
    });

    it("updates an application", async () => {
      const app = await t.store.createApplication(anApplication({ uid: "old" }));
      const changed = {
        ...app,
        uid: "new",
        name: "Renamed",
        metadata: { k: "v" },
        deliveryPolicy: { retry: { preset: "svix" as const } },
        updatedAt: T0 + HOUR,
      };
      // Looked up first, as every request does, so nothing read before the change is answered.
      expect(await t.store.findApplication(app.id)).toEqual(app);
      expect(await t.store.findApplication("old")).toEqual(app);
      expect(await t.store.updateApplication(changed)).toBe(true);
      expect(await t.store.findApplication(app.id)).toEqual(changed);
      expect(await t.store.findApplication("new")).toEqual(changed);
      expect(await t.store.findApplication("old")).toBeNull();
    });

    it("updates an application as read only while no other write came in between", async () => {
      const read = await t.store.createApplication(anApplication({ name: "Read" }));
      const first = { ...read, name: "First", updatedAt: read.updatedAt + 1 };
      expect(await t.store.updateApplication(first, read.updatedAt)).toBe(true);
      const stale = { ...read, metadata: { stale: "yes" }, updatedAt: read.updatedAt + 2 };
      expect(await t.store.updateApplication(stale, read.updatedAt)).toBe(false);
      expect(await t.store.findApplication(read.id)).toEqual(first);
      const fresh = { ...first, metadata: { fresh: "yes" }, updatedAt: first.updatedAt + 1 };
      expect(await t.store.updateApplication(fresh, first.updatedAt)).toBe(true);
      expect(await t.store.findApplication(read.id)).toEqual(fresh);
      await t.store.deleteApplication(read.id);
      expect(await t.store.updateApplication(fresh)).toBe(false);
    });

    it("answers each lookup with an application of its own to change", async () => {
      const app = await t.store.createApplication(anApplication({ metadata: { k: "v" } }));
      const found = (await t.store.findApplication(app.id))!;
      found.name = "changed by a caller";
      found.metadata.k = "changed";
      expect(await t.store.findApplication(app.id)).toEqual(app);
    });

    it("rejects a duplicate uid with a ConflictError, on create and on update", async () => {
      await t.store.createApplication(anApplication({ uid: "acme" }));
      await expect(
        t.store.createApplication(anApplication({ uid: "acme" })),
      ).rejects.toBeInstanceOf(ConflictError);
      const other = await t.store.createApplication(anApplication({ uid: "other" }));
      await expect(t.store.updateApplication({ ...other, uid: "acme" })).rejects.toBeInstanceOf(
        ConflictError,
      );
    });

    it("deletes an application with its endpoints, messages and deliveries", async () => {
      const { app, endpoints } = await seedApp(t.store);
      const { message } = await accept(t.store, app.id);
      const [delivery] = await t.store.listDeliveries(message.id);
      expect(await t.store.findApplication(app.id)).toEqual(app);
      await t.store.deleteApplication(app.id);
      expect(await t.store.findApplication(app.id)).toBeNull();
      expect(await t.store.getEndpoint(endpoints[0]!.id)).toBeNull();
      expect(await t.store.findMessage(app.id, message.id)).toBeNull();
      expect(await t.store.getDelivery(delivery!.id)).toBeNull();
      expect(await claimAll(t.store, T0 + HOUR)).toEqual([]);
    });

    it("lists applications page by page in ascending order", async () => {
      const ids: string[] = [];
      for (let i = 0; i < 5; i++) ids.push((await t.store.createApplication(anApplication())).id);

      const first = await t.store.listApplications({ limit: 2 });
      expect(first.data.map((a) => a.id)).toEqual(ids.slice(0, 2));
      expect(first.done).toBe(false);
      expect(first.iterator).toBe(ids[1]);

      const second = await t.store.listApplications({ limit: 2, iterator: first.iterator });
      expect(second.data.map((a) => a.id)).toEqual(ids.slice(2, 4));
      expect(second.done).toBe(false);

      const third = await t.store.listApplications({ limit: 2, iterator: second.iterator });
      expect(third.data.map((a) => a.id)).toEqual(ids.slice(4));
      expect(third.done).toBe(true);

      const walk = await allPages((q) => t.store.listApplications(q), { limit: 2 });
      expect(walk.items.map((a) => a.id)).toEqual(ids);
    });

    it("leaves out applications without endpoints, or with only disabled ones, when asked", async () => {
      const none = await t.store.createApplication(anApplication());
      const enabled = await seedApp(t.store, [{ disabled: true }, {}]);
      const disabled = await seedApp(t.store, [{ disabled: true }, { disabled: true }]);
      const list = async (q: ApplicationFilter) =>
        (await t.store.listApplications({ limit: 10, ...q })).data.map((a) => a.id);
      expect(await list({})).toEqual([none.id, enabled.app.id, disabled.app.id]);
      expect(await list({ excludeWithNoEndpoints: true })).toEqual([
        enabled.app.id,
        disabled.app.id,
      ]);
      expect(await list({ excludeWithOnlyDisabledEndpoints: true })).toEqual([
        none.id,
        enabled.app.id,
      ]);
      const both = { excludeWithNoEndpoints: true, excludeWithOnlyDisabledEndpoints: true };
      expect(await list(both)).toEqual([enabled.app.id]);
    });

    it("lists applications page by page in descending order", async () => {
      const ids: string[] = [];
      for (let i = 0; i < 5; i++) ids.push((await t.store.createApplication(anApplication())).id);
      const first = await t.store.listApplications({ limit: 2, order: "descending" });
      expect(first.data.map((a) => a.id)).toEqual([ids[4], ids[3]]);
      expect(first.done).toBe(false);
      const walk = await allPages((q) => t.store.listApplications(q), {
        limit: 2,
        order: "descending",
      });
      expect(walk.items.map((a) => a.id)).toEqual([...ids].reverse());
      expect(walk.pages).toBe(3);
    });

    it("reports done on a page that ends exactly at the last application", async () => {
      for (let i = 0; i < 4; i++) await t.store.createApplication(anApplication());
      const first = await t.store.listApplications({ limit: 2 });
      const second = await t.store.listApplications({ limit: 2, iterator: first.iterator });
      expect(second.data).toHaveLength(2);
      expect(second.done).toBe(true);
    });

    it("lists nothing, done, when there are no applications", async () => {
      const page = await t.store.listApplications({ limit: 10 });
      expect(page.data).toEqual([]);
      expect(page.done).toBe(true);
    });
  });

  describe("endpoints", () => {
    it("creates an endpoint and finds it by id and by uid within its application", async () => {
      const app = await t.store.createApplication(anApplication());
      const ep = anEndpoint(app.id, {
        uid: "billing",
        description: "Billing hooks ✓",
        filterTypes: ["invoice.paid", "invoice.failed"],
        channels: ["eu"],
        headers: { "x-team": "billing" },
        metadata: { owner: "ops" },
        rateLimit: 10,
        deliveryPolicy: { retry: { preset: "default" }, concurrencyLimit: 2 },
      });
      await t.store.createEndpoint(ep);
      expect(await t.store.findEndpoint(app.id, ep.id)).toEqual(ep);
      expect(await t.store.findEndpoint(app.id, "billing")).toEqual(ep);
      expect(await t.store.getEndpoint(ep.id)).toEqual(ep);
      expect(await t.store.findEndpoint(app.id, "nothing")).toBeNull();
    });

    it("reads several endpoints at once, as one by one, leaving out ids of none", async () => {
      const { app, endpoints } = await seedApp(t.store, [{}, {}, {}]);
      const [a, b, c] = endpoints.map((e) => e.id) as [string, string, string];
      await t.store.deleteEndpoint(app.id, c);
      // More ids than a statement could bind one by one (SQLite's old limit was 999).
      const none = Array.from({ length: 1_100 }, (_, i) => `ep_none${i}`);
      const read = await t.store.getEndpoints([b, ...none, a, c]);
      expect(read.sort((x, y) => x.id.localeCompare(y.id))).toEqual(
        [await t.store.getEndpoint(a), await t.store.getEndpoint(b)].sort((x, y) =>
          x!.id.localeCompare(y!.id),
        ),
      );
      expect(await t.store.getEndpoints([])).toEqual([]);
    });

    it("names, of several endpoints at once, those disabled and those deleted", async () => {
      const { app, endpoints } = await seedApp(t.store, [{}, {}, {}, { disabled: true }]);
      const [sent, disabled, deleted, createdDisabled] = endpoints.map((e) => e.id) as [
        string,
        string,
        string,
        string,
      ];
      await t.store.updateEndpoint({ ...endpoints[1]!, disabled: true });
      await t.store.deleteEndpoint(app.id, deleted);
      const none = Array.from({ length: 1_100 }, (_, i) => `ep_none${i}`);
      const stopped = await t.store.listStoppedEndpoints([
        sent,
        disabled,
        deleted,
        createdDisabled,
        ...none,
      ]);
      expect(Object.fromEntries(stopped)).toEqual({
        [disabled]: "disabled",
        [deleted]: "deleted",
        [createdDisabled]: "disabled",
        ...Object.fromEntries(none.map((id) => [id, "deleted"])),
      });
      // Enabled again, it is sent to.
      await t.store.updateEndpoint({ ...endpoints[1]!, disabled: false });
      expect(await t.store.listStoppedEndpoints([sent, disabled])).toEqual(new Map());
      expect(await t.store.listStoppedEndpoints([])).toEqual(new Map());
    });

    it("does not find another application's endpoint by id or uid", async () => {
      const { endpoints } = await seedApp(t.store, [{ uid: "billing" }]);
      const other = await t.store.createApplication(anApplication());
      expect(await t.store.findEndpoint(other.id, endpoints[0]!.id)).toBeNull();
      expect(await t.store.findEndpoint(other.id, "billing")).toBeNull();
    });

    it("allows a uid once per application", async () => {
      const { app } = await seedApp(t.store, [{ uid: "billing" }]);
      const other = await t.store.createApplication(anApplication());
      await t.store.createEndpoint(anEndpoint(other.id, { uid: "billing" }));
      await expect(
        t.store.createEndpoint(anEndpoint(app.id, { uid: "billing" })),
      ).rejects.toBeInstanceOf(ConflictError);
    });

    it("updates an endpoint", async () => {
      const { app, endpoints } = await seedApp(t.store);
      const changed = {
        ...endpoints[0]!,
        url: "https://receiver.example/v2",
        version: 2,
        disabled: true,
        disabledReason: "paused by the customer",
        filterTypes: ["user.created"],
        secrets: {
          current: "whsec_" + Buffer.alloc(24, 7).toString("base64"),
          previous: [{ secret: endpoints[0]!.secrets.current, expiresAt: T0 + HOUR }],
        },
        updatedAt: T0 + HOUR,
      };
      expect(await t.store.updateEndpoint(changed)).toBe(true);
      expect(await t.store.findEndpoint(app.id, changed.id)).toEqual(changed);
    });

    it("updates an endpoint as read only while no other write came in between", async () => {
      const { app, endpoints } = await seedApp(t.store);
      const read = endpoints[0]!;
      const first = {
        ...read,
        url: "https://receiver.example/first",
        updatedAt: read.updatedAt + 1,
      };
      expect(await t.store.updateEndpoint(first, read.updatedAt)).toBe(true);
      // A second change made from the same read would undo the first: refused, nothing written.
      const stale = { ...read, description: "stale", updatedAt: read.updatedAt + 2 };
      expect(await t.store.updateEndpoint(stale, read.updatedAt)).toBe(false);
      expect(await t.store.findEndpoint(app.id, read.id)).toEqual(first);
      // Made from the endpoint as it now is, it goes through.
      const fresh = { ...first, description: "fresh", updatedAt: first.updatedAt + 1 };
      expect(await t.store.updateEndpoint(fresh, first.updatedAt)).toBe(true);
      expect(await t.store.findEndpoint(app.id, read.id)).toEqual(fresh);
      // An endpoint that is gone is not written, and says so.
      await t.store.deleteEndpoint(app.id, read.id);
      expect(await t.store.updateEndpoint(fresh)).toBe(false);
    });

    it("lists an application's endpoints page by page", async () => {
      const { app, endpoints } = await seedApp(t.store, [{}, {}, {}]);
      await seedApp(t.store, [{}]);
      const walk = await allPages((q) => t.store.listEndpoints(app.id, q), { limit: 2 });
      expect(walk.items.map((e) => e.id)).toEqual(endpoints.map((e) => e.id));
      expect(walk.pages).toBe(2);
      // Newest first, as the API lists them by default: each one once, across pages too.
      const back = await allPages((q) => t.store.listEndpoints(app.id, q), {
        limit: 2,
        order: "descending",
      });
      expect(back.items.map((e) => e.id)).toEqual(endpoints.map((e) => e.id).reverse());
      expect(back.pages).toBe(2);
    });

    it("deletes an endpoint, but not through another application", async () => {
      const { app, endpoints } = await seedApp(t.store);
      const ep = endpoints[0]!;
      const other = await t.store.createApplication(anApplication());
      await t.store.deleteEndpoint(other.id, ep.id);
      expect(await t.store.getEndpoint(ep.id)).toEqual(ep);
      await t.store.deleteEndpoint(app.id, ep.id);
      expect(await t.store.findEndpoint(app.id, ep.id)).toBeNull();
      expect(await t.store.getEndpoint(ep.id)).toBeNull();
    });

    it("deleting an endpoint removes its deliveries, attempts, dead letters and circuit", async () => {
      const { app, endpoints } = await seedApp(t.store, [{}, {}]);
      const [gone, kept] = [endpoints[0]!, endpoints[1]!];
      const m1 = await accept(t.store, app.id, { now: T0 });
      const m2 = await accept(t.store, app.id, { now: T0 });
      const claimed = await claimAll(t.store, T0);
      const ofGone = claimed.filter((d) => d.endpointId === gone.id);
      const ofKept = claimed.filter((d) => d.endpointId === kept.id);
      const at = T0 + SECOND;
      await t.store.recordAttempts([
        succeeded(ofGone[0]!, at),
        outcomeFor(ofGone[1]!, {
          at,
          next: { kind: "dead", failureClass: "permanent", reason: "HTTP 400" },
        }),
        retried(ofKept[0]!, at, at + HOUR),
        succeeded(ofKept[1]!, at),
      ]);
      const circuit = {
        state: "open" as const,
        since: at,
        reason: "failing",
        nextProbeAt: at + HOUR,
        reopenCount: 0,
      };
      const transition = { from: "closed" as const, to: "open" as const, at, reason: "failing" };
      await t.store.saveCircuit(gone.id, circuit, transition);
      await t.store.saveCircuit(kept.id, circuit, transition);
      const goneAttempts = await t.store.listAttempts({
        appId: app.id,
        endpointId: gone.id,
        limit: 10,
      });
      expect(goneAttempts.data).toHaveLength(2);

      await t.store.deleteEndpoint(app.id, gone.id);

      for (const d of ofGone) expect(await t.store.getDelivery(d.id)).toBeNull();
      for (const d of ofGone) expect(await t.store.findDeadLetterByDelivery(d.id)).toBeNull();
      for (const a of goneAttempts.data) expect(await t.store.findAttempt(app.id, a.id)).toBeNull();
      const attempts = await t.store.listAttempts({ appId: app.id, limit: 10 });
      expect(attempts.data.every((a) => a.endpointId === kept.id)).toBe(true);
      expect(attempts.data).toHaveLength(2);
      expect((await t.store.listDeadLetters({ appId: app.id, limit: 10 })).data).toEqual([]);
      expect(await t.store.getCircuit(gone.id)).toBeNull();
      expect(await t.store.listCircuitTransitions(gone.id, 10)).toEqual([]);
      expect(await t.store.getCircuit(kept.id)).not.toBeNull();
      for (const d of ofKept) expect(await t.store.getDelivery(d.id)).not.toBeNull();
      expect(await t.store.findMessage(app.id, m1.message.id)).not.toBeNull();
      expect(await t.store.findMessage(app.id, m2.message.id)).not.toBeNull();
    });

    it("clearing a deleted endpoint's leftovers touches nothing of one that exists", async () => {
      const { app, endpoints } = await seedApp(t.store);
      const ep = endpoints[0]!;
      const { message } = await accept(t.store, app.id);
      const [delivery] = await t.store.listDeliveries(message.id);
      const circuit = {
        state: "open" as const,
        since: T0,
        reason: "failing",
        nextProbeAt: T0 + HOUR,
        reopenCount: 0,
      };
      await t.store.saveCircuit(ep.id, circuit, {
        from: "closed",
        to: "open",
        at: T0,
        reason: "failing",
      });

      await t.store.clearDeletedEndpoint(ep.id);
      await t.store.clearDeletedEndpoint("ep_never_stored");

      expect(await t.store.getEndpoint(ep.id)).not.toBeNull();
      expect(await t.store.getDelivery(delivery!.id)).not.toBeNull();
      expect(await t.store.getCircuit(ep.id)).not.toBeNull();
    });
  });

  describe("event types", () => {
    it("creates an event type and finds it by name", async () => {
      const et = anEventType("invoice.paid", {
        deprecated: true,
        featureFlags: ["beta"],
        groupName: "invoices",
        schemas: { "1": { type: "object", properties: { id: { type: "string" } } } },
      });
      await t.store.createEventType(et);
      expect(await t.store.findEventType("invoice.paid")).toEqual(et);
      expect(await t.store.findEventType("invoice.lost")).toBeNull();
    });

    it("rejects a second event type with the same name with a ConflictError", async () => {
      await t.store.createEventType(anEventType("invoice.paid"));
      await expect(t.store.createEventType(anEventType("invoice.paid"))).rejects.toBeInstanceOf(
        ConflictError,
      );
    });

    it("lists event types by name, hiding archived ones unless asked", async () => {
      await t.store.createEventType(anEventType("c.three"));
      await t.store.createEventType(anEventType("a.one"));
      await t.store.createEventType(anEventType("b.two", { archived: true }));
      const visible = await allPages((q) => t.store.listEventTypes(q), { limit: 1 });
      expect(visible.items.map((e) => e.name)).toEqual(["a.one", "c.three"]);
      const all = await t.store.listEventTypes({ limit: 10, includeArchived: true });
      expect(all.data.map((e) => e.name)).toEqual(["a.one", "b.two", "c.three"]);
      expect(all.done).toBe(true);
    });

    it("lists for feature flags only the event types without any or with one of them", async () => {
      await t.store.createEventType(anEventType("a.open"));
      await t.store.createEventType(anEventType("b.beta", { featureFlags: ["beta"] }));
      await t.store.createEventType(anEventType("c.vip", { featureFlags: ["vip", "staff"] }));
      await t.store.createEventType(anEventType("d.open"));
      const names = async (featureFlags: string[]) =>
        (
          await allPages((q) => t.store.listEventTypes({ ...q, featureFlags }), { limit: 1 })
        ).items.map((e) => e.name);
      expect(await names([])).toEqual(["a.open", "d.open"]);
      expect(await names(["beta"])).toEqual(["a.open", "b.beta", "d.open"]);
      expect(await names(["staff", "other"])).toEqual(["a.open", "c.vip", "d.open"]);
      // A flag is matched whole, never as a part of another.
      expect(await names(["bet", "vip,staff"])).toEqual(["a.open", "d.open"]);
    });

    it("updates an event type", async () => {
      const et = await t.store.createEventType(anEventType("invoice.paid"));
      const changed = { ...et, description: "Paid", archived: true, updatedAt: T0 + HOUR };
      expect(await t.store.updateEventType(changed)).toBe(true);
      expect(await t.store.findEventType("invoice.paid")).toEqual(changed);
    });

    it("updates an event type as read only while no other write came in between", async () => {
      const read = await t.store.createEventType(anEventType("read.me"));
      const archived = { ...read, archived: true, updatedAt: read.updatedAt + 1 };
      expect(await t.store.updateEventType(archived, read.updatedAt)).toBe(true);
      const stale = { ...read, description: "stale", updatedAt: read.updatedAt + 2 };
      expect(await t.store.updateEventType(stale, read.updatedAt)).toBe(false);
      expect(await t.store.findEventType("read.me")).toEqual(archived);
      await t.store.deleteEventType("read.me");
      expect(await t.store.updateEventType(archived)).toBe(false);
    });

    it("deletes an event type", async () => {
      await t.store.createEventType(anEventType("invoice.paid"));
      await t.store.createEventType(anEventType("invoice.failed"));
      await t.store.deleteEventType("invoice.paid");
      expect(await t.store.findEventType("invoice.paid")).toBeNull();
      expect(await t.store.findEventType("invoice.failed")).not.toBeNull();
    });
  });
}
