/**
 * An old key taken out of HOOKLINE_ENCRYPTION_OLD_KEYS before `hookline keys rotate` re-sealed
 * every row: the newest endpoint and message open, older ones do not. Start-up must refuse then,
 * naming the key, rather than start and fail the deliveries that need those rows, over and over.
 */
import { randomBytes } from "node:crypto";
import { afterEach, describe, expect, it } from "vitest";
import type { Endpoint } from "../../src/domain/types.js";
import { ConfigError } from "../../src/errors.js";
import { FieldCipher, keyId } from "../../src/security/cipher.js";
import type { Store } from "../../src/store/port.js";
import { accept, claimAll, seedApp, succeeded, T0 } from "../store/behaviour/fixtures.js";
import { postgresRaw, sqliteRaw, type RawStore } from "../support/raw-stores.js";

const [keyA, keyB] = [randomBytes(32), randomBytes(32)];

/** Writes `ep` again, so that it is sealed with the store's current key and is the newest. */
async function rewrite(store: Store, ep: Endpoint, at: number): Promise<void> {
  expect(await store.updateEndpoint({ ...ep, description: "touched", updatedAt: at })).toBe(true);
}

async function expectRefusedForKeyA(store: Store): Promise<void> {
  const check = store.verifySealing();
  await expect(check).rejects.toThrow(ConfigError);
  await expect(check).rejects.toThrow(`key ${keyId(keyA)}`);
}

describe.each([
  ["sqlite", sqliteRaw],
  ["postgres", postgresRaw],
])("start-up on %s with a key older rows still need removed", (_name, makeAdapter) => {
  let adapter: RawStore;
  let store: Store | null = null;
  afterEach(async () => {
    await store?.close();
    store = null;
    await adapter?.cleanup();
  });

  it("is refused when an endpoint that is not the newest is sealed with it", async () => {
    adapter = makeAdapter();
    store = await adapter.open(new FieldCipher(keyA));
    const { app, endpoints } = await seedApp(store, [{}, {}]);
    await store.close();

    store = await adapter.open(new FieldCipher(keyB, [keyA]));
    await rewrite(store, endpoints[1]!, T0 + 1_000);
    await accept(store, app.id);
    await store.close();

    store = await adapter.open(new FieldCipher(keyB));
    await expectRefusedForKeyA(store);
  });

  it("is refused when a message still to be delivered is sealed with it", async () => {
    adapter = makeAdapter();
    store = await adapter.open(new FieldCipher(keyA));
    const { app, endpoints } = await seedApp(store, [{}]);
    await accept(store, app.id);
    await store.close();

    store = await adapter.open(new FieldCipher(keyB, [keyA]));
    await rewrite(store, endpoints[0]!, T0 + 1_000);
    await accept(store, app.id);
    await store.close();

    store = await adapter.open(new FieldCipher(keyB));
    await expectRefusedForKeyA(store);
  });

  it("starts when only messages already delivered are sealed with it", async () => {
    adapter = makeAdapter();
    store = await adapter.open(new FieldCipher(keyA));
    const { app, endpoints } = await seedApp(store, [{}]);
    await accept(store, app.id);
    // Claimed and answered: nothing is left for the engine to send of it.
    await store.recordAttempts((await claimAll(store, T0)).map((d) => succeeded(d, T0)));
    await store.close();

    store = await adapter.open(new FieldCipher(keyB, [keyA]));
    await rewrite(store, endpoints[0]!, T0 + 1_000);
    await accept(store, app.id);
    await store.close();

    store = await adapter.open(new FieldCipher(keyB));
    await expect(store.verifySealing()).resolves.toBeUndefined();
  });
});
