/**
 * A page of messages with content holds payloads up to PAGE_PAYLOAD_BYTES (4 MiB) past its first
 * message, and then ends, not done, for the client to ask on from its iterator. Without a bound a
 * page of 100 payloads of 1 MiB was one answer of 104 MB, built in memory while every other
 * request (/health too) waited; with HOOKLINE_MAX_BODY_BYTES at 64 MiB a page of 250 could be
 * 16 GiB. Through the official Svix client following `iterator` until `done`, on both stores.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Svix } from "svix";
import { PAGE_PAYLOAD_BYTES } from "../../src/api/schemas/message.js";
import { startHooklineOn, type TestHookline } from "../support/hookline.js";
import { pages } from "../support/pages.js";

const MIB = 1024 * 1024;
/** Payloads of 1.5 MiB: two fit a page's 4 MiB, a third would pass it. */
const PAYLOAD_CHARS = 1.5 * MIB;
const COUNT = 5;

describe.each(["sqlite", "postgres"] as const)("on %s", (kind) => {
  let h: TestHookline;
  let svix: Svix;
  let appId: string;
  let endpointId: string;
  const ids: string[] = [];

  beforeAll(async () => {
    h = await startHooklineOn(kind, { HOOKLINE_MAX_BODY_BYTES: String(2 * MIB) });
    svix = h.svix;
    appId = (await svix.application.create({ name: "Large payloads" })).id;
    endpointId = (await svix.endpoint.create(appId, { url: "https://example.com/hook" })).id;
    // Due tomorrow: the deliveries wait, nothing is sent anywhere.
    const deliverAt = new Date(Date.now() + 24 * 3_600_000);
    for (let i = 0; i < COUNT; i++) {
      const payload = { n: i, pad: "x".repeat(PAYLOAD_CHARS) };
      ids.push((await svix.message.create(appId, { eventType: "big", payload, deliverAt })).id);
    }
  }, 60_000);
  afterAll(async () => h?.stop());

  it("bounds a page by its payloads and pages on to every message", async () => {
    expect(PAGE_PAYLOAD_BYTES).toBe(4 * MIB);
    const read = await pages((iterator) => svix.message.list(appId, { limit: 250, iterator }));
    expect(read.map((page) => page.length)).toEqual([2, 2, 1]);
    const messages = read.flat().reverse();
    expect(messages.map((m) => m.id)).toEqual(ids);
    messages.forEach((m, n) => expect(m.payload).toEqual({ n, pad: "x".repeat(PAYLOAD_CHARS) }));
  });

  it("bounds a page of an endpoint's messages the same way", async () => {
    const read = await pages((iterator) =>
      svix.messageAttempt.listAttemptedMessages(appId, endpointId, { limit: 250, iterator }),
    );
    expect(read.map((page) => page.length)).toEqual([2, 2, 1]);
    expect(read.flat().map((m) => m.id)).toEqual([...ids].reverse());
  });

  it("answers a page without content whole: no payload is read to bound it", async () => {
    const page = await svix.message.list(appId, { limit: 250, withContent: false });
    expect(page.done).toBe(true);
    expect(page.data.map((m) => m.id)).toEqual([...ids].reverse());
    expect(page.data.map((m) => m.payload)).toEqual(ids.map(() => ({})));
    const sent = await svix.messageAttempt.listAttemptedMessages(appId, endpointId, {
      limit: 250,
      withContent: false,
    });
    expect(sent.done).toBe(true);
    expect(sent.data).toHaveLength(COUNT);
  });
});
