/**
 * What reading messages without content asks of a store: a page of an application's messages, of
 * an endpoint's, a page of attempts' messages by id, and their payloads' sizes (a page of attempts
 * with content is bounded by them), none of them with their payloads. Each
 * adapter's test records the statements these run and checks that none reads a payload.
 */
import { expect } from "vitest";
import { newId } from "../../src/ids.js";
import type { Store } from "../../src/store/port.js";
import { accept, seedApp, T0 } from "./behaviour/fixtures.js";

const LARGE_PAYLOAD = Buffer.from(`{"pad":"${"x".repeat(64 * 1024)}"}`);

/** An application with one endpoint and a few messages of large payloads. */
export async function anApplicationWithLargePayloads(
  store: Store,
): Promise<{ appId: string; endpointId: string; messageIds: string[] }> {
  const { app, endpoints } = await seedApp(store, [{}]);
  const messageIds: string[] = [];
  for (let i = 0; i < 3; i++) {
    messageIds.push(
      (await accept(store, app.id, { now: T0 + i, payload: LARGE_PAYLOAD })).message.id,
    );
  }
  return { appId: app.id, endpointId: endpoints[0]!.id, messageIds };
}

/** Every read without content the API makes, each checked to answer its messages. */
export async function readWithoutContent(
  store: Store,
  ids: { appId: string; endpointId: string; messageIds: string[] },
): Promise<void> {
  const { appId, endpointId, messageIds } = ids;
  const q = { limit: 250, withContent: false } as const;
  const listed = await store.listMessages(appId, q);
  expect(listed.data.map((m) => m.id).sort()).toEqual(messageIds);
  const sent = await store.listEndpointMessages({ ...q, appId, endpointId });
  expect(sent.data.map((m) => m.message.id).sort()).toEqual(messageIds);
  const found = await store.findMessages(appId, [...messageIds, newId("msg")], q);
  expect(found.map((m) => m.id).sort()).toEqual(messageIds);
  const sizes = await store.messagePayloadBytes(appId, [...messageIds, newId("msg")]);
  expect([...sizes.keys()].sort()).toEqual(messageIds);
  expect([...sizes.values()]).toEqual(messageIds.map(() => LARGE_PAYLOAD.length));
  for (const m of [...listed.data, ...sent.data.map((s) => s.message), ...found]) {
    expect(m.payload).toHaveLength(0);
  }
}

/**
 * Whether a statement reads the `messages.payload` column itself: taking only its size
 * (`length`, `octet_length`) reads the row's header, not the bytes. A `*` on a table that has a
 * payload reads it too.
 */
export function readsPayloads(sql: string): boolean {
  const sizesAside = sql.replace(/\b(octet_)?length\(\w+\.payload\)/g, "");
  return /\bpayload\b/.test(sizesAside) || /\b(SELECT|m\.)\s*\*/.test(sizesAside);
}
