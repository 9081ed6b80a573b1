/**
 * Encryption at rest, checked where an attacker with the database would look: the SQLite file
 * itself and PostgreSQL's rows read directly. Also rotation from one key to another, starting
 * from plaintext rows, and a wrong key refused at start-up.
 */
import { randomBytes } from "node:crypto";
import { rmSync } from "node:fs";
import { afterEach, describe, expect, it } from "vitest";
import { ConfigError } from "../../src/errors.js";
import { FieldCipher, keyId } from "../../src/security/cipher.js";
import { rotateKeys } from "../../src/security/rotate.js";
import type { Store } from "../../src/store/port.js";
import { startHookline } from "../support/hookline.js";
import { accept, anApplication, anEndpoint } from "../store/behaviour/fixtures.js";
import { postgresRaw, sqliteRaw, type RawStore } from "../support/raw-stores.js";

const SECRET = `whsec_${randomBytes(24).toString("base64")}`;
const HEADER = "Bearer receiver-credential-7f3a";
const PAYLOAD = '{"marker":"plaintext-payload-91c2"}';

async function writeSome(store: Store): Promise<void> {
  const app = await store.createApplication(anApplication());
  await store.createEndpoint(
    anEndpoint(app.id, {
      secrets: { current: SECRET, previous: [] },
      headers: { authorization: HEADER },
    }),
  );
  await accept(store, app.id, { payload: Buffer.from(PAYLOAD) });
}

function expectPlaintextAbsent(raw: string): void {
  for (const s of [SECRET, HEADER, "plaintext-payload-91c2"]) expect(raw).not.toContain(s);
}

describe.each([
  ["sqlite", sqliteRaw],
  ["postgres", postgresRaw],
])("encryption at rest on %s", (_name, makeAdapter) => {
  let adapter: RawStore;
  afterEach(async () => adapter?.cleanup());

  it("stores no plaintext secret, header or payload when a key is set", async () => {
    adapter = makeAdapter();
    const store = await adapter.open(new FieldCipher(randomBytes(32)));
    await writeSome(store);
    await store.close();
    expectPlaintextAbsent(await adapter.rawText());
  });

  it("rotates plaintext rows to key A, then to key B; a store without B refuses to start", async () => {
    adapter = makeAdapter();
    const [keyA, keyB] = [randomBytes(32), randomBytes(32)];
    // Rows written before any key was configured.
    let store = await adapter.open(new FieldCipher(null));
    await writeSome(store);
    await store.close();
    expect(await adapter.rawText()).toContain("plaintext-payload-91c2");

    store = await adapter.open(new FieldCipher(keyA));
    await store.verifySealing();
    expect(await rotateKeys(store)).toEqual({
      endpoints: { scanned: 1, rewritten: 1 },
      messages: { scanned: 1, rewritten: 1 },
      idempotency_keys: { scanned: 0, rewritten: 0 },
    });
    await store.close();
    expectPlaintextAbsent(await adapter.rawText());

    store = await adapter.open(new FieldCipher(keyB, [keyA]));
    await writeSome(store);
    const totals = await rotateKeys(store, { batchSize: 1 });
    expect(totals.messages).toEqual({ scanned: 2, rewritten: 1 });
    await store.close();

    // Only key B now: everything opens, secrets and payloads as written.
    store = await adapter.open(new FieldCipher(keyB));
    await store.verifySealing();
    const apps = await store.listApplications({ limit: 10 });
    for (const app of apps.data) {
      const [ep] = (await store.listEndpoints(app.id, { limit: 10 })).data;
      expect(ep?.secrets.current).toBe(SECRET);
      expect(ep?.headers).toEqual({ authorization: HEADER });
      const [msg] = (await store.listMessages(app.id, { limit: 10 })).data;
      expect(msg?.payload.toString()).toBe(PAYLOAD);
    }
    await store.close();
    expectPlaintextAbsent(await adapter.rawText());

    // Key A alone, or no key, cannot read what B sealed: a clear error, never garbage.
    for (const wrong of [new FieldCipher(keyA), new FieldCipher(null)]) {
      store = await adapter.open(wrong);
      const failure = store.verifySealing();
      await expect(failure).rejects.toThrow(ConfigError);
      await expect(failure).rejects.toThrow(`key ${keyId(keyB)}`);
      await store.close();
    }
  });
});

describe("start-up with the wrong key", () => {
  it("fails naming the missing key instead of serving garbage", async () => {
    const key = randomBytes(32).toString("base64");
    const first = await startHookline({ env: { HOOKLINE_ENCRYPTION_KEY: key } });
    await first.svix.application.create({ name: "shop" });
    const app = (await first.svix.application.list()).data[0]!;
    await first.svix.endpoint.create(app.id, { url: "http://127.0.0.1:9/hook" });
    await first.stop(true);
    await expect(
      startHookline({
        dataDir: first.dataDir,
        env: { HOOKLINE_ENCRYPTION_KEY: randomBytes(32).toString("hex") },
      }),
    ).rejects.toThrow(/HOOKLINE_ENCRYPTION_OLD_KEYS/);
    rmSync(first.dataDir, { recursive: true, force: true });
  });
});
