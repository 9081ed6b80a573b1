/** Accepting messages, fanning them out to endpoints, and reading them back. */
import { describe, expect, it } from "vitest";
import type { Message } from "../../../src/domain/types.js";
import { newId } from "../../../src/ids.js";
import type { EndpointMessageQuery, Page, PageQuery } from "../../../src/store/port.js";
import {
  accept,
  allPages,
  anApplication,
  anEndpoint,
  claimAll,
  HOUR,
  MINUTE,
  only,
  outcomeFor,
  retried,
  SECOND,
  seedApp,
  succeeded,
  T0,
  type StoreUnderTest,
} from "./fixtures.js";

export function messageBehaviour(t: StoreUnderTest): void {
  describe("acceptMessage", () => {
    it("writes the message and one pending delivery per matching enabled endpoint", async () => {
      const { app, endpoints } = await seedApp(t.store, [
        { filterTypes: null },
        { filterTypes: [] },
        { filterTypes: ["invoice.paid", "invoice.failed"] },
        { filterTypes: ["user.created"] },
        { disabled: true, disabledReason: "410 Gone" },
      ]);
      const now = T0 + MINUTE;
      const result = await accept(t.store, app.id, { eventType: "invoice.paid", now });
      expect(result.created).toBe(true);
      expect(result.deliveries).toBe(3);

      const deliveries = await t.store.listDeliveries(result.message.id);
      expect(deliveries.map((d) => d.endpointId).sort()).toEqual(
        endpoints
          .slice(0, 3)
          .map((e) => e.id)
          .sort(),
      );
      for (const d of deliveries) {
        expect(d).toMatchObject({
          appId: app.id,
          messageId: result.message.id,
          state: "pending",
          origin: "message",
          attemptCount: 0,
          nextAttemptAt: now,
          firstAttemptAt: null,
          lastAttemptAt: null,
          createdAt: now,
        });
        expect(await t.store.getDelivery(d.id)).toEqual(d);
      }
    });

    it("sends a message with channels only to endpoints without channels or sharing one", async () => {
      const { app, endpoints } = await seedApp(t.store, [
        { channels: null },
        { channels: ["a"] },
        { channels: ["a", "b"] },
        { channels: ["c"] },
      ]);
      const [all, , ab] = endpoints.map((e) => e.id);
      const withB = await accept(t.store, app.id, { channels: ["b", "z"] });
      const targets = await t.store.listDeliveries(withB.message.id);
      expect(targets.map((d) => d.endpointId).sort()).toEqual([all, ab].sort());

      const without = await accept(t.store, app.id, { channels: null });
      expect(without.deliveries).toBe(1);
      expect(only(await t.store.listDeliveries(without.message.id)).endpointId).toBe(all);
    });

    it("keeps the payload bytes exactly as accepted", async () => {
      const { app } = await seedApp(t.store);
      const payload = Buffer.from(
        '{ "text" :  "héllo ✓",\n\t"n":1.50 ,"e":"\\u00e9" }  \n',
        "utf8",
      );
      const result = await accept(t.store, app.id, { payload, eventId: "evt-bytes" });
      expect(result.message.payload.toString("hex")).toBe(payload.toString("hex"));

      const byId = await t.store.findMessage(app.id, result.message.id);
      expect(Buffer.isBuffer(byId?.payload)).toBe(true);
      expect(byId?.payload.toString("hex")).toBe(payload.toString("hex"));

      const claimed = only(await claimAll(t.store, T0));
      expect(Buffer.isBuffer(claimed.payload)).toBe(true);
      expect(claimed.payload.toString("hex")).toBe(payload.toString("hex"));
    });

    it("a repeated eventId returns the first message and writes nothing", async () => {
      const { app } = await seedApp(t.store, [{}, {}]);
      const first = await accept(t.store, app.id, { eventId: "evt-1" });
      expect(first).toMatchObject({ created: true, deliveries: 2 });

      const secondId = newId("msg");
      const second = await accept(t.store, app.id, {
        id: secondId,
        eventId: "evt-1",
        now: T0 + SECOND,
        payload: Buffer.from('{"other":true}'),
      });
      expect(second.created).toBe(false);
      expect(second.deliveries).toBe(0);
      expect(second.message).toEqual(first.message);
      expect(await t.store.findMessage(app.id, secondId)).toBeNull();
      expect(await t.store.listDeliveries(first.message.id)).toHaveLength(2);
      expect(await t.store.listDeliveries(secondId)).toEqual([]);
      expect((await t.store.listMessages(app.id, { limit: 10 })).data).toHaveLength(1);
      expect(await claimAll(t.store, T0 + HOUR)).toHaveLength(2);
    });

    it("accepts of one eventId at once create exactly one message and its deliveries", async () => {
      const { app } = await seedApp(t.store, [{}, {}]);
      const results = await Promise.all(
        [1, 2, 3, 4].map((i) =>
          accept(t.store, app.id, { eventId: "evt-race", payload: Buffer.from(`{"n":${i}}`) }),
        ),
      );
      const created = results.filter((r) => r.created);
      expect(created).toHaveLength(1);
      for (const r of results) expect(r.message).toEqual(created[0]!.message);
      expect((await t.store.listMessages(app.id, { limit: 10 })).data).toHaveLength(1);
      expect(await claimAll(t.store, T0 + HOUR)).toHaveLength(2);
    });

    it("messages posted at once go to their own application's matching endpoints", async () => {
      const a = await seedApp(t.store, [{ filterTypes: ["a.happened"] }, {}]);
      const b = await seedApp(t.store, [{ channels: ["eu"] }]);
      const results = await Promise.all([
        accept(t.store, a.app.id, { eventType: "a.happened" }),
        accept(t.store, b.app.id, { channels: ["eu"] }),
        accept(t.store, a.app.id, { eventType: "b.happened" }),
        accept(t.store, b.app.id, { channels: ["us"] }),
      ]);
      expect(results.map((r) => r.deliveries)).toEqual([2, 1, 1, 0]);
      const targets = async (i: number) =>
        (await t.store.listDeliveries(results[i]!.message.id)).map((d) => d.endpointId).sort();
      expect(await targets(0)).toEqual(a.endpoints.map((e) => e.id).sort());
      expect(await targets(1)).toEqual([b.endpoints[0]!.id]);
      expect(await targets(2)).toEqual([a.endpoints[1]!.id]);
    });

    it("a message sees the endpoints as they are when it is accepted", async () => {
      const { app, endpoints } = await seedApp(t.store, [{}, {}]);
      expect((await accept(t.store, app.id)).deliveries).toBe(2);
      await t.store.updateEndpoint({ ...endpoints[0]!, disabled: true, disabledReason: "manual" });
      expect((await accept(t.store, app.id)).deliveries).toBe(1);
      await t.store.createEndpoint(anEndpoint(app.id));
      expect((await accept(t.store, app.id)).deliveries).toBe(2);
    });

    it("the same eventId in another application is a new message", async () => {
      const a = await seedApp(t.store);
      const b = await seedApp(t.store);
      await accept(t.store, a.app.id, { eventId: "evt-1" });
      const other = await accept(t.store, b.app.id, { eventId: "evt-1" });
      expect(other).toMatchObject({ created: true, deliveries: 1 });
      expect((await t.store.findMessage(b.app.id, "evt-1"))?.id).toBe(other.message.id);
    });

    it("makes deliveries due at the message's delivery time", async () => {
      const { app } = await seedApp(t.store);
      const result = await accept(t.store, app.id, { now: T0, dueAt: T0 + HOUR });
      const [d] = await t.store.listDeliveries(result.message.id);
      expect(d?.nextAttemptAt).toBe(T0 + HOUR);
      expect(await claimAll(t.store, T0 + HOUR - 1)).toEqual([]);
      expect(await claimAll(t.store, T0 + HOUR)).toHaveLength(1);
    });

    it("keeps the delivery time the sender asked for on the message, null when none", async () => {
      const { app } = await seedApp(t.store);
      const later = await accept(t.store, app.id, {
        eventId: "evt-later",
        dueAt: T0 + HOUR,
        deliverAt: T0 + HOUR,
      });
      const now = await accept(t.store, app.id);
      expect(later.message.deliverAt).toBe(T0 + HOUR);
      expect(now.message.deliverAt).toBeNull();
      expect((await t.store.findMessage(app.id, later.message.id))?.deliverAt).toBe(T0 + HOUR);
      expect((await t.store.findMessage(app.id, now.message.id))?.deliverAt).toBeNull();
      const listed = (await t.store.listMessages(app.id, { limit: 10 })).data;
      expect(listed.map((m) => m.deliverAt)).toEqual([null, T0 + HOUR]);
      // A repeated eventId answers the first message, its delivery time included.
      const again = await accept(t.store, app.id, { eventId: "evt-later", deliverAt: T0 });
      expect(again.message.deliverAt).toBe(T0 + HOUR);
    });

    it("holds a delivery to an endpoint with an open circuit until its probe", async () => {
      const { app, endpoints } = await seedApp(t.store, [{}, {}, {}]);
      const [open, stale, closed] = endpoints.map((e) => e.id) as [string, string, string];
      const probeAt = T0 + 5 * MINUTE;
      await t.store.saveCircuit(
        open,
        {
          state: "open",
          since: T0 - MINUTE,
          reason: "failing",
          nextProbeAt: probeAt,
          reopenCount: 0,
        },
        null,
      );
      // A probe time already passed holds nothing.
      await t.store.saveCircuit(
        stale,
        {
          state: "open",
          since: T0 - HOUR,
          reason: "failing",
          nextProbeAt: T0 - MINUTE,
          reopenCount: 0,
        },
        null,
      );
      const result = await accept(t.store, app.id, { now: T0 });
      const due = new Map(
        (await t.store.listDeliveries(result.message.id)).map((d) => [
          d.endpointId,
          d.nextAttemptAt,
        ]),
      );
      expect(due.get(open)).toBe(probeAt);
      expect(due.get(stale)).toBe(T0);
      expect(due.get(closed)).toBe(T0);
      const now = await claimAll(t.store, T0);
      expect(now.map((d) => d.endpointId).sort()).toEqual([stale, closed].sort());
    });
  });

  describe("findMessage", () => {
    it("finds a message by id and by eventId, only within its application", async () => {
      const { app } = await seedApp(t.store);
      const other = await t.store.createApplication(anApplication());
      const { message } = await accept(t.store, app.id, {
        eventId: "evt-7",
        eventType: "user.created",
        channels: ["eu"],
        tags: ["vip"],
        now: T0 + SECOND,
      });
      expect(message).toMatchObject({
        appId: app.id,
        eventType: "user.created",
        eventId: "evt-7",
        channels: ["eu"],
        tags: ["vip"],
        createdAt: T0 + SECOND,
      });
      expect(await t.store.findMessage(app.id, message.id)).toEqual(message);
      expect(await t.store.findMessage(app.id, "evt-7")).toEqual(message);
      expect(await t.store.findMessage(other.id, message.id)).toBeNull();
      expect(await t.store.findMessage(other.id, "evt-7")).toBeNull();
      expect(await t.store.findMessage(app.id, "evt-unknown")).toBeNull();
    });

    it("finds a page's messages by id at once, only within their application", async () => {
      const { app } = await seedApp(t.store);
      const other = await seedApp(t.store);
      const mine = [];
      for (let i = 0; i < 3; i++) {
        mine.push((await accept(t.store, app.id, { eventId: `evt-${i}`, now: T0 + i })).message);
      }
      const theirs = (await accept(t.store, other.app.id)).message;
      const found = await t.store.findMessages(app.id, [
        mine[2]!.id,
        theirs.id,
        "evt-0",
        mine[0]!.id,
        newId("msg"),
      ]);
      expect(found.sort((a, b) => a.id.localeCompare(b.id))).toEqual([mine[0], mine[2]]);
      expect(await t.store.findMessages(app.id, [])).toEqual([]);
    });
  });

  describe("listMessages", () => {
    it("lists an application's messages newest first, page by page", async () => {
      const { app } = await seedApp(t.store);
      const other = await seedApp(t.store);
      const ids: string[] = [];
      for (let i = 0; i < 5; i++) {
        ids.push((await accept(t.store, app.id, { now: T0 + i * SECOND })).message.id);
      }
      await accept(t.store, other.app.id);
      const first = await t.store.listMessages(app.id, { limit: 2 });
      expect(first.data.map((m) => m.id)).toEqual([ids[4], ids[3]]);
      expect(first.done).toBe(false);
      const walk = await allPages((q) => t.store.listMessages(app.id, q), { limit: 2 });
      expect(walk.items.map((m) => m.id)).toEqual([...ids].reverse());
      const oldest = await t.store.listMessages(app.id, { limit: 2, order: "ascending" });
      expect(oldest.data.map((m) => m.id)).toEqual([ids[0], ids[1]]);
    });

    it("filters by event types", async () => {
      const { app } = await seedApp(t.store);
      const a = await accept(t.store, app.id, { eventType: "a.happened" });
      await accept(t.store, app.id, { eventType: "b.happened" });
      const c = await accept(t.store, app.id, { eventType: "c.happened" });
      const page = await t.store.listMessages(app.id, {
        limit: 10,
        eventTypes: ["a.happened", "c.happened"],
      });
      expect(page.data.map((m) => m.id)).toEqual([c.message.id, a.message.id]);
    });

    it("filters by channel and by tag", async () => {
      const { app } = await seedApp(t.store);
      const eu = await accept(t.store, app.id, { channels: ["eu", "vip"], tags: ["vip", "eu"] });
      const us = await accept(t.store, app.id, { channels: ["us"], tags: ["eu"] });
      await accept(t.store, app.id, { channels: null, tags: null });
      const list = async (q: { channel?: string; tag?: string }) =>
        (await t.store.listMessages(app.id, { limit: 10, ...q })).data.map((m) => m.id);
      expect(await list({ channel: "eu" })).toEqual([eu.message.id]);
      expect(await list({ tag: "vip" })).toEqual([eu.message.id]);
      expect(await list({ tag: "eu" })).toEqual([us.message.id, eu.message.id]);
      expect(await list({ tag: "eu", channel: "us" })).toEqual([us.message.id]);
    });

    it("filters by creation time with before and after", async () => {
      const { app } = await seedApp(t.store);
      const ids: string[] = [];
      for (let i = 0; i < 4; i++) {
        ids.push((await accept(t.store, app.id, { now: T0 + i * SECOND })).message.id);
      }
      const page = await t.store.listMessages(app.id, {
        limit: 10,
        after: T0 + SECOND / 2,
        before: T0 + 2.5 * SECOND,
      });
      expect(page.data.map((m) => m.id)).toEqual([ids[2], ids[1]]);
      const filteredWalk = await allPages(
        (q) => t.store.listMessages(app.id, { ...q, after: T0 + SECOND / 2 }),
        { limit: 2 },
      );
      expect(filteredWalk.items.map((m) => m.id)).toEqual([ids[3], ids[2], ids[1]]);
    });
  });

  describe("listEndpointMessages", () => {
    it("lists an endpoint's messages newest first, each by its latest delivery there", async () => {
      const { app, endpoints } = await seedApp(t.store, [{}, { filterTypes: ["b.happened"] }]);
      const [ep, other] = endpoints.map((e) => e.id) as [string, string];
      const a = await accept(t.store, app.id, { now: T0, channels: ["eu"], tags: ["vip"] });
      const b = await accept(t.store, app.id, { now: T0 + SECOND, eventType: "b.happened" });
      const c = await accept(t.store, app.id, { now: T0 + 2 * SECOND });
      const claimed = await claimAll(t.store, T0 + 2 * SECOND);
      const to = (m: string) => claimed.find((d) => d.messageId === m && d.endpointId === ep)!;
      await t.store.recordAttempts([
        succeeded(to(a.message.id), T0 + 3 * SECOND),
        outcomeFor(to(b.message.id), {
          at: T0 + 3 * SECOND,
          next: { kind: "dead", failureClass: "permanent", reason: "HTTP 400" },
        }),
      ]);
      // b is sent again: its resend, pending, stands for it now.
      await t.store.enqueueResend({
        id: newId("dlv"),
        appId: app.id,
        messageId: b.message.id,
        endpointId: ep,
        now: T0 + 4 * SECOND,
      });
      const list = async (q: Partial<EndpointMessageQuery> = {}) =>
        (
          await t.store.listEndpointMessages({ appId: app.id, endpointId: ep, limit: 10, ...q })
        ).data.map((m) => [m.message.id, m.state, m.nextAttemptAt]);
      expect(await list()).toEqual([
        [c.message.id, "inflight", T0 + 2 * SECOND],
        [b.message.id, "pending", T0 + 4 * SECOND],
        [a.message.id, "succeeded", null],
      ]);
      expect(await list({ state: "pending" })).toEqual([
        [b.message.id, "pending", T0 + 4 * SECOND],
      ]);
      expect((await list({ tag: "vip", channel: "eu" })).map(([id]) => id)).toEqual([a.message.id]);
      expect((await list({ eventTypes: ["b.happened"] })).map(([id]) => id)).toEqual([
        b.message.id,
      ]);
      expect((await list({ after: T0, before: T0 + 2 * SECOND })).map(([id]) => id)).toEqual([
        b.message.id,
      ]);
      const found = await t.store.listEndpointMessages({ appId: app.id, endpointId: ep, limit: 1 });
      expect(found.data[0]?.message).toEqual(c.message);
      const walk = await allPages(
        (q) => t.store.listEndpointMessages({ ...q, appId: app.id, endpointId: ep }),
        { limit: 2, order: "ascending" },
      );
      expect(walk.items.map((m) => m.message.id)).toEqual([a, b, c].map((r) => r.message.id));
      const others = await t.store.listEndpointMessages({
        appId: app.id,
        endpointId: other,
        limit: 10,
      });
      expect(others.data.map((m) => m.message.id)).toEqual([b.message.id]);
      // Where each one's retry window stands, which an open circuit's probe may pass.
      const page = await t.store.listEndpointMessages({ appId: app.id, endpointId: ep, limit: 10 });
      expect(page.data.map((m) => [m.message.id, m.attemptCount, m.firstAttemptAt])).toEqual([
        [c.message.id, 0, null],
        [b.message.id, 0, null],
        [a.message.id, 1, T0 + 3 * SECOND],
      ]);
    });
  });

  describe("reading messages without content", () => {
    it("lists and finds the same messages, with every payload left empty", async () => {
      const { app, endpoints } = await seedApp(t.store, [{}]);
      const ep = only(endpoints).id;
      const accepted: Message[] = [];
      for (let i = 0; i < 3; i++) {
        const payload = Buffer.from(JSON.stringify({ n: i, pad: "x".repeat(1000) }));
        accepted.push((await accept(t.store, app.id, { now: T0 + i * SECOND, payload })).message);
      }
      const empty = (m: Message) => ({ ...m, payload: Buffer.alloc(0) });
      const newestFirst = [...accepted].reverse();

      const listed = await t.store.listMessages(app.id, { limit: 10, withContent: false });
      expect(listed.data).toEqual(newestFirst.map(empty));
      const walk = await allPages(
        (q) => t.store.listMessages(app.id, { ...q, withContent: false }),
        { limit: 2 },
      );
      expect(walk.items).toEqual(newestFirst.map(empty));

      const sent = await t.store.listEndpointMessages({
        appId: app.id,
        endpointId: ep,
        limit: 10,
        withContent: false,
      });
      expect(sent.data.map((m) => m.message)).toEqual(newestFirst.map(empty));
      expect(sent.data.map((m) => m.state)).toEqual(["pending", "pending", "pending"]);

      const ids = accepted.map((m) => m.id);
      const found = await t.store.findMessages(app.id, ids, { withContent: false });
      expect(found.sort((a, b) => a.id.localeCompare(b.id))).toEqual(accepted.map(empty));
      // With content (the default, or said), the payloads are there as accepted.
      expect((await t.store.listMessages(app.id, { limit: 10 })).data).toEqual(newestFirst);
      const withContent = await t.store.listMessages(app.id, { limit: 10, withContent: true });
      expect(withContent.data).toEqual(newestFirst);
    });
  });

  describe("a page's payload bytes", () => {
    /** Every page of a walk with `q`, following `iterator` until `done` as Svix clients do. */
    async function walk<T>(list: (q: PageQuery) => Promise<Page<T>>, q: PageQuery) {
      const pages: T[][] = [];
      let iterator: string | null = null;
      for (let n = 0; n < 100; n++) {
        const page: Page<T> = await list({ ...q, iterator });
        pages.push(page.data);
        if (page.done) return pages;
        iterator = page.iterator;
      }
      throw new Error("listing never reported done");
    }

    it("ends a page with content before the message its payload would pass the bound at", async () => {
      const { app, endpoints } = await seedApp(t.store, [{}]);
      const ep = only(endpoints).id;
      const sizes = [400, 300, 300, 2000, 100, 100];
      const ids: string[] = [];
      for (const [i, size] of sizes.entries()) {
        // A JSON object of exactly `size` bytes.
        const payload = Buffer.from(`{"p":"${"x".repeat(size - 8)}"}`);
        expect(payload.length).toBe(size);
        ids.push((await accept(t.store, app.id, { now: T0 + i * SECOND, payload })).message.id);
      }
      const q = { limit: 10, order: "ascending" as const, maxPayloadBytes: 1000 };

      const pages = await walk((p) => t.store.listMessages(app.id, { ...p, ...q }), q);
      // 400+300+300 fit; 2000 alone passes the bound but a page always holds one; then the rest.
      expect(pages.map((page) => page.map((m) => m.payload.length))).toEqual([
        [400, 300, 300],
        [2000],
        [100, 100],
      ]);
      expect(pages.flat().map((m) => m.id)).toEqual(ids);

      const sent = await walk(
        (p) => t.store.listEndpointMessages({ ...p, ...q, appId: app.id, endpointId: ep }),
        q,
      );
      expect(sent.map((page) => page.map((m) => m.message.payload.length))).toEqual([
        [400, 300, 300],
        [2000],
        [100, 100],
      ]);

      // Without content nothing is read, so nothing bounds the page but its limit.
      const bare = await t.store.listMessages(app.id, { ...q, withContent: false });
      expect(bare.data.map((m) => m.id)).toEqual(ids);
      expect(bare.done).toBe(true);
    });
  });

  describe("enqueueResend", () => {
    it("adds a pending resend delivery of the message, due now", async () => {
      const { app, endpoints } = await seedApp(t.store);
      const { message } = await accept(t.store, app.id);
      await t.store.recordAttempts([succeeded(only(await claimAll(t.store, T0)), T0 + SECOND)]);

      const now = T0 + HOUR;
      const id = newId("dlv");
      const resend = await t.store.enqueueResend({
        id,
        appId: app.id,
        messageId: message.id,
        endpointId: endpoints[0]!.id,
        now,
      });
      expect(resend).toMatchObject({
        id,
        appId: app.id,
        messageId: message.id,
        endpointId: endpoints[0]!.id,
        state: "pending",
        origin: "resend",
        attemptCount: 0,
        nextAttemptAt: now,
        createdAt: now,
      });
      expect(await t.store.getDelivery(id)).toEqual(resend);
      const all = await t.store.listDeliveries(message.id);
      expect(all.map((d) => d.state).sort()).toEqual(["pending", "succeeded"]);
      const claimed = only(await claimAll(t.store, now));
      expect(claimed).toMatchObject({ id, origin: "resend", messageId: message.id });
    });

    it("brings forward the delivery waiting for a retry instead of adding one (no second send)", async () => {
      const { app, endpoints } = await seedApp(t.store);
      const ep = endpoints[0]!.id;
      const { message } = await accept(t.store, app.id);
      const first = only(await claimAll(t.store, T0));
      await t.store.recordAttempts([retried(first, T0 + SECOND, T0 + HOUR)]);

      const now = T0 + MINUTE;
      const resend = await t.store.enqueueResend({
        id: newId("dlv"),
        appId: app.id,
        messageId: message.id,
        endpointId: ep,
        now,
      });
      expect(resend).toMatchObject({
        id: first.id,
        state: "pending",
        origin: "message",
        attemptCount: 1,
        nextAttemptAt: now,
      });
      expect(await t.store.listDeliveries(message.id)).toEqual([resend]);
      expect(only(await claimAll(t.store, now)).id).toBe(first.id);
      // Claimed (in flight), it is not waiting: another resend is a delivery of its own.
      const again = await t.store.enqueueResend({
        id: newId("dlv"),
        appId: app.id,
        messageId: message.id,
        endpointId: ep,
        now: now + SECOND,
      });
      expect(again).toMatchObject({ origin: "resend", nextAttemptAt: now + SECOND });
      expect((await t.store.listDeliveries(message.id)).length).toBe(2);
    });

    it("brings forward a delivery waiting for its later time, to that endpoint only", async () => {
      const { app, endpoints } = await seedApp(t.store, [{}, {}]);
      const [ep1, ep2] = endpoints.map((e) => e.id) as [string, string];
      const { message } = await accept(t.store, app.id, { dueAt: T0 + HOUR });
      const resend = await t.store.enqueueResend({
        id: newId("dlv"),
        appId: app.id,
        messageId: message.id,
        endpointId: ep1,
        now: T0 + SECOND,
      });
      expect(resend).toMatchObject({ endpointId: ep1, origin: "message", attemptCount: 0 });
      const due = (await t.store.listDeliveries(message.id)).map((d) => [
        d.endpointId,
        d.nextAttemptAt,
      ]);
      expect(due.sort()).toEqual(
        [
          [ep1, T0 + SECOND],
          [ep2, T0 + HOUR],
        ].sort(),
      );
    });

    it("writes nothing for a message that is gone (retention took it after it was read)", async () => {
      const { app, endpoints } = await seedApp(t.store);
      const id = newId("dlv");
      const messageId = newId("msg");
      const resend = await t.store.enqueueResend({
        id,
        appId: app.id,
        messageId,
        endpointId: endpoints[0]!.id,
        now: T0,
      });
      expect(resend).toBeNull();
      expect(await t.store.getDelivery(id)).toBeNull();
      expect(await t.store.listDeliveries(messageId)).toEqual([]);
    });

    it("writes nothing for an endpoint that is gone (deleted after it was read)", async () => {
      const { app, endpoints } = await seedApp(t.store, [{}, {}]);
      const [gone, kept] = [endpoints[0]!, endpoints[1]!];
      const { message } = await accept(t.store, app.id);
      await t.store.recordAttempts(
        (await claimAll(t.store, T0)).map((d) => succeeded(d, T0 + SECOND)),
      );
      await t.store.deleteEndpoint(app.id, gone.id);

      const id = newId("dlv");
      const resend = await t.store.enqueueResend({
        id,
        appId: app.id,
        messageId: message.id,
        endpointId: gone.id,
        now: T0 + HOUR,
      });
      expect(resend).toBeNull();
      expect(await t.store.getDelivery(id)).toBeNull();
      // A delivery to no endpoint would be claimed and dropped on every start, never finished.
      expect((await t.store.listDeliveries(message.id)).map((d) => d.endpointId)).toEqual([
        kept.id,
      ]);
      expect(await claimAll(t.store, T0 + HOUR)).toEqual([]);
    });

    it("finds no delivery for an unknown id", async () => {
      expect(await t.store.getDelivery(newId("dlv"))).toBeNull();
      expect(await t.store.listDeliveries(newId("msg"))).toEqual([]);
    });
  });
}
