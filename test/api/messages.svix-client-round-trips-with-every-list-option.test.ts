/**
 * What a Svix client user does with messages: create one with every field the model has (an
 * application to create with it included), read it back by id and by eventId, send the read back
 * as a retry (the same message answers), precheck, and list with every option the client has,
 * paging on to the end. Every call must be taken, on SQLite and PostgreSQL (their times and
 * orders are each store's own).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { PostgresStore } from "../../src/store/postgres/store.js";
import type { SqliteStore } from "../../src/store/sqlite/store.js";
import { startApi, type ApiHarness } from "./harness.js";

describe.each(["sqlite", "postgres"] as const)("on %s", (kind) => {
  let api: ApiHarness<SqliteStore | PostgresStore>;
  beforeAll(async () => {
    api = await startApi({}, undefined, kind);
  });
  afterAll(async () => api.close());

  it("creates with every field, reads it back and sends the read again", async () => {
    const svix = api.svix;
    const made = await svix.message.create("shop", {
      eventType: "order.placed",
      eventId: "order-1",
      payload: { order: 1 },
      channels: ["eu"],
      tags: ["vip"],
      payloadRetentionPeriod: 30,
      application: { name: "Shop", uid: "shop", metadata: { plan: "pro" }, rateLimit: 7 },
    });
    expect((await svix.application.get("shop")).rateLimit).toBe(7);
    await svix.endpoint.create("shop", { url: "http://127.0.0.1:9/eu", channels: ["eu"] });

    const read = await svix.message.get("shop", made.id);
    expect(read).toMatchObject({ eventId: "order-1", channels: ["eu"], tags: ["vip"] });
    expect(await svix.message.get("shop", "order-1", { withContent: false })).toMatchObject({
      id: made.id,
      payload: {},
    });
    // A retry built from the read (its application read too) answers the message made.
    const app = await svix.application.get("shop");
    const again = await svix.message.create("shop", { ...read, application: { ...app } });
    expect(again.id).toBe(made.id);

    expect(
      await svix.message.precheck("shop", { eventType: "order.placed", channels: ["eu"] }),
    ).toMatchObject({ active: true });
    expect(
      await svix.message.precheck("shop", { eventType: "order.placed", channels: ["us"] }),
    ).toMatchObject({ active: false });
  });

  it("lists with every option the client has, paging on to the end", async () => {
    const svix = api.svix;
    const ids = [(await svix.message.get("shop", "order-1")).id];
    for (const [eventType, channels, tags] of [
      ["order.placed", ["eu"], ["vip"]],
      ["order.shipped", ["eu"], ["vip"]],
      ["order.placed", ["us"], []],
    ] as const) {
      ids.push(
        (
          await svix.message.create("shop", {
            eventType,
            payload: {},
            channels: [...channels],
            tags: [...tags],
          })
        ).id,
      );
    }
    const first = await svix.message.get("shop", ids[0]!);
    const last = await svix.message.get("shop", ids[3]!);
    const read = async (options: Parameters<typeof svix.message.list>[1] = {}) => {
      const seen: string[] = [];
      let iterator: string | null | undefined = undefined;
      for (;;) {
        const page = await svix.message.list("shop", { ...options, limit: 1, iterator });
        seen.push(...page.data.map((m) => m.id));
        if (page.done) return seen;
        iterator = page.iterator;
      }
    };
    const newestFirst = [...ids].reverse();
    expect(await read()).toEqual(newestFirst);
    expect(
      await read({
        eventTypes: ["order.placed"],
        channel: "eu",
        tag: "vip",
        withContent: false,
        after: new Date(first.timestamp.getTime() - 1),
        before: new Date(last.timestamp.getTime() + 1),
      }),
    ).toEqual([ids[1], ids[0]]);
    expect(await read({ eventTypes: ["order.placed", "order.shipped"], channel: "us" })).toEqual([
      ids[3],
    ]);
    // A window given by a read message's own time leaves that message out.
    expect(await read({ after: first.timestamp, withContent: true })).not.toContain(ids[0]);
  });
});
