/**
 * A page of attempts with their messages (`with_msg=true`, with content) holds payloads up to
 * PAGE_PAYLOAD_BYTES (4 MiB) past its first attempt, and then ends, not done, for the client to ask
 * on from its iterator. Each attempt repeats its message, so a message counts once per attempt.
 * Without the bound a page of 250 attempts of 250 messages of 1 MiB was one answer of about
 * 250 MB, built in memory while every other request waited. Through the official Svix client (and
 * plain HTTP where the client has no `with_msg`), on both stores.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Svix } from "svix";
import type { EngineEvent } from "../../src/engine/events.js";
import { deliveryOf, startHooklineOn, type TestHookline } from "../support/hookline.js";
import { Receiver } from "../support/receiver.js";
import { pages, type Page } from "../support/pages.js";

const MIB = 1024 * 1024;
/** Payloads of 1.5 MiB: two fit a page's 4 MiB, a third would pass it. */
const PAYLOAD_CHARS = 1.5 * MIB;
const COUNT = 5;
const RESENDS = 3;

interface Listed {
  id: string;
  msgId: string;
  msg?: { id: string; payload: unknown } | null;
}
type ListPage = Page<Listed>;

const padOf = (n: number) => ({ n, pad: "x".repeat(PAYLOAD_CHARS) });

describe.each(["sqlite", "postgres"] as const)("on %s", (kind) => {
  let h: TestHookline;
  let svix: Svix;
  let receiver: Receiver;
  let appId: string;
  let endpointId: string;
  const ids: string[] = [];

  beforeAll(async () => {
    receiver = await Receiver.start(() => ({ status: 200, body: "ok" }));
    h = await startHooklineOn(kind, { HOOKLINE_MAX_BODY_BYTES: String(2 * MIB) });
    svix = h.svix;
    appId = (await svix.application.create({ name: "Large payloads" })).id;
    endpointId = (await svix.endpoint.create(appId, { url: receiver.url("/hook") })).id;
    for (let i = 0; i < COUNT; i++) {
      const id = (await svix.message.create(appId, { eventType: "big", payload: padOf(i) })).id;
      await h.waitFor(deliveryOf(id, "succeeded"), 30_000);
      ids.push(id);
    }
    // The first message sent again and again: its attempts each carry its payload.
    type Delivered = Extract<EngineEvent, { type: "delivery" }>;
    const ofFirst = (e: EngineEvent): e is Delivered => deliveryOf(ids[0]!, "succeeded")(e);
    const seen = new Set(h.events.filter(ofFirst).map((e) => e.deliveryId));
    for (let i = 0; i < RESENDS; i++) {
      await svix.messageAttempt.resend(appId, ids[0]!, endpointId);
      const e = await h.waitFor((e) => ofFirst(e) && !seen.has(e.deliveryId), 30_000);
      if (ofFirst(e)) seen.add(e.deliveryId);
    }
  }, 120_000);
  afterAll(async () => {
    await h?.stop();
    await receiver?.close();
  });

  it("bounds an endpoint's attempts with their messages and pages on to every attempt", async () => {
    const whole = await svix.messageAttempt.listByEndpoint(appId, endpointId, { limit: 250 });
    expect(whole.done).toBe(true);
    expect(whole.data).toHaveLength(COUNT + RESENDS);

    const read = await pages((iterator) =>
      svix.messageAttempt.listByEndpoint(appId, endpointId, {
        limit: 250,
        withMsg: true,
        iterator,
      }),
    );
    expect(read.map((page) => page.length)).toEqual([2, 2, 2, 2]);
    const attempts = read.flat();
    expect(attempts.map((a) => a.id)).toEqual(whole.data.map((a) => a.id));
    for (const a of attempts) {
      expect(a.msg?.id).toBe(a.msgId);
      expect(a.msg?.payload).toEqual(padOf(ids.indexOf(a.msgId)));
    }
  });

  it("counts a message once per attempt that carries it", async () => {
    const path = `/api/v1/app/${appId}/attempt/msg/${ids[0]}?limit=250&with_msg=true`;
    const read = await pages(async (iterator) => {
      const res = await h.api<ListPage>("GET", iterator ? `${path}&iterator=${iterator}` : path);
      expect(res.status).toBe(200);
      return res.body;
    });
    expect(read.map((page) => page.length)).toEqual([2, 2]);
    expect(read.flat().every((a) => a.msg?.id === ids[0])).toBe(true);
  });

  it("answers a page without content whole: no payload is read to bound it", async () => {
    const page = await svix.messageAttempt.listByEndpoint(appId, endpointId, {
      limit: 250,
      withMsg: true,
      withContent: false,
    });
    expect(page.done).toBe(true);
    expect(page.data).toHaveLength(COUNT + RESENDS);
    expect(page.data.every((a) => a.msg?.id === a.msgId)).toBe(true);
  });
});
