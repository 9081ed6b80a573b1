/**
 * Idempotency answers at rest. The Svix clients send an idempotency key with every POST, so the
 * answers kept for replay hold message payloads and freshly issued plaintext tokens: with a key
 * configured they must be as sealed as the payloads themselves, replay opened, and take part in
 * key rotation.
 */
import { randomBytes } from "node:crypto";
import { rmSync } from "node:fs";
import { afterEach, describe, expect, it } from "vitest";
import { FieldCipher } from "../../src/security/cipher.js";
import { rotateKeys } from "../../src/security/rotate.js";
import type { Endpoint } from "../../src/domain/types.js";
import type { IdempotencyBegin } from "../../src/store/port.js";
import { anApplication, anEndpoint } from "../store/behaviour/fixtures.js";
import { startHookline, type TestHookline } from "../support/hookline.js";
import { postgresRaw, rawFiles, sqliteRaw, type RawStore } from "../support/raw-stores.js";

const MARKER = "idempotent-answer-marker-5e1b";
const ANSWER = JSON.stringify({ id: "msg_1", payload: { note: MARKER } });
const T0 = 1_700_000_000_000;

const begin = (now: number): IdempotencyBegin => ({
  scope: "admin:POST /api/v1/app/app_1/msg",
  key: "auto_1",
  owner: "req_1",
  fingerprint: "sha256:aaa",
  now,
  lockMs: 60_000,
  ttlMs: 24 * 3_600_000,
});

// A boolean, so a failure does not print the whole database.
function inClear(raw: string, marker: string): boolean {
  return raw.includes(marker);
}

describe.each([
  ["sqlite", sqliteRaw],
  ["postgres", postgresRaw],
])("idempotency answers at rest on %s", (_name, makeAdapter) => {
  let adapter: RawStore;
  afterEach(async () => adapter?.cleanup());

  it("stores the answer sealed when a key is set and replays it opened", async () => {
    adapter = makeAdapter();
    const store = await adapter.open(new FieldCipher(randomBytes(32)));
    expect(await store.beginIdempotent(begin(T0))).toEqual({ kind: "new" });
    await store.finishIdempotent(begin(T0), 202, ANSWER);
    expect(await store.beginIdempotent(begin(T0 + 1000))).toEqual({
      kind: "replay",
      status: 202,
      body: ANSWER,
    });
    await store.close();
    expect(inClear(await adapter.rawText(), MARKER)).toBe(false);
  });

  it("an answer kept in its write's transaction is sealed, made of what was written in clear", async () => {
    adapter = makeAdapter();
    const store = await adapter.open(new FieldCipher(randomBytes(32)));
    const app = await store.createApplication(anApplication());
    const ep = anEndpoint(app.id, { secrets: { current: `whsec_${MARKER}`, previous: [] } });
    const held = { ...begin(T0), scope: "admin:POST /api/v1/app/app_1/endpoint" };
    await store.beginIdempotent(held);
    const answer = (made: Endpoint) => ({ status: 201, body: JSON.stringify(made.secrets) });
    await store.createEndpoint(ep, { held, answer });
    expect(await store.beginIdempotent({ ...held, now: T0 + 1000 })).toEqual({
      kind: "replay",
      status: 201,
      body: JSON.stringify(ep.secrets),
    });
    await store.close();
    expect(inClear(await adapter.rawText(), MARKER)).toBe(false);
  });

  it("replays answers written before a key was set, and rotation seals them", async () => {
    adapter = makeAdapter();
    const [keyA, keyB] = [randomBytes(32), randomBytes(32)];
    let store = await adapter.open(new FieldCipher(null));
    await store.beginIdempotent(begin(T0));
    await store.finishIdempotent(begin(T0), 202, ANSWER);
    await store.close();
    expect(inClear(await adapter.rawText(), MARKER)).toBe(true);

    store = await adapter.open(new FieldCipher(keyA));
    const replay = { kind: "replay", status: 202, body: ANSWER };
    expect(await store.beginIdempotent(begin(T0 + 1000))).toEqual(replay);
    const totals = await rotateKeys(store);
    expect(totals.idempotency_keys).toEqual({ scanned: 1, rewritten: 1 });
    await store.close();
    expect(inClear(await adapter.rawText(), MARKER)).toBe(false);

    store = await adapter.open(new FieldCipher(keyB, [keyA]));
    expect((await rotateKeys(store)).idempotency_keys).toEqual({ scanned: 1, rewritten: 1 });
    await store.close();
    // Key B alone opens what rotation rewrote.
    store = await adapter.open(new FieldCipher(keyB));
    expect(await store.beginIdempotent(begin(T0 + 2000))).toEqual(replay);
    await store.close();
  });
});

describe("idempotency answers through the API, with a key set", () => {
  let hookline: TestHookline | null = null;
  afterEach(async () => {
    await hookline?.stop();
    hookline = null;
  });

  it("keep no message payload or issued token in clear, and still replay", async () => {
    hookline = await startHookline({
      env: { HOOKLINE_ENCRYPTION_KEY: randomBytes(32).toString("base64") },
    });
    const app = await hookline.svix.application.create({ name: "shop" });
    const post = (path: string, body: unknown, key: string) =>
      fetch(`${hookline!.url}${path}`, {
        method: "POST",
        headers: {
          authorization: `Bearer ${hookline!.token}`,
          "content-type": "application/json",
          "idempotency-key": key,
        },
        body: JSON.stringify(body),
      });
    // The answer carries the payload (this Svix client asks without it; curl and others do not).
    const message = { eventType: "order.paid", payload: { note: MARKER } };
    const sent = await post(`/api/v1/app/${app.id}/msg`, message, "msg-1");
    expect(sent.status).toBe(202);
    const sentText = await sent.text();
    expect(sentText).toContain(MARKER);
    const resent = await post(`/api/v1/app/${app.id}/msg`, message, "msg-1");
    expect(resent.headers.get("idempotent-replayed")).toBe("true");
    expect(await resent.text()).toBe(sentText);

    const first = await post("/api/v1/tokens", { name: "ci", scope: "admin" }, "token-1");
    expect(first.status).toBe(201);
    const firstText = await first.text();
    const issued = (JSON.parse(firstText) as { token: string }).token;
    const again = await post("/api/v1/tokens", { name: "ci", scope: "admin" }, "token-1");
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    expect(await again.text()).toBe(firstText);

    const dataDir = hookline.dataDir;
    await hookline.stop(true);
    hookline = null;
    const raw = rawFiles(dataDir);
    rmSync(dataDir, { recursive: true, force: true });
    expect(inClear(raw, MARKER), "the message payload").toBe(false);
    expect(inClear(raw, issued), "the issued token").toBe(false);
  });
});
