/** Encryption at rest: with a cipher, the store hands back plaintext and rotation walks every row. */
import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { FieldCipher } from "../../../src/security/cipher.js";
import { rotateKeys } from "../../../src/security/rotate.js";
import { giveUp } from "./dlq-fixtures.js";
import { accept, claimAll, only, seedApp, SECOND, T0, type StoreUnderTest } from "./fixtures.js";

/** Registers the sealing behaviours. */
export function sealingBehaviour(t: StoreUnderTest): void {
  describe("sealing secrets and payloads at rest", () => {
    it("hands back plaintext secrets, headers and payloads wherever they are read", async () => {
      const store = await t.withCipher(new FieldCipher(randomBytes(32)));
      const { app, endpoints } = await seedApp(store, [
        { headers: { authorization: "Bearer receiver-credential" } },
      ]);
      const ep = only(endpoints);
      expect(await store.getEndpoint(ep.id)).toEqual(ep);
      expect(await store.findEndpoint(app.id, ep.id)).toEqual(ep);
      expect((await store.listEndpoints(app.id, { limit: 10 })).data).toEqual([ep]);

      const payload = Buffer.from('{"card":"4111 1111 1111 1111"}');
      const accepted = await accept(store, app.id, { payload, eventId: "evt-1" });
      expect(accepted.message.payload).toEqual(payload);
      const again = await accept(store, app.id, { payload, eventId: "evt-1" });
      expect(again).toMatchObject({ created: false, message: { payload } });
      expect((await store.findMessage(app.id, accepted.message.id))?.payload).toEqual(payload);
      expect((await store.listMessages(app.id, { limit: 10 })).data[0]?.payload).toEqual(payload);
      const sent = await store.listEndpointMessages({ appId: app.id, endpointId: ep.id, limit: 1 });
      expect(sent.data[0]?.message.payload).toEqual(payload);
      const bounded = await store.listMessages(app.id, { limit: 10, maxPayloadBytes: 1 });
      expect(bounded.data[0]?.payload).toEqual(payload);

      const claimed = only(await claimAll(store, T0));
      expect(claimed.payload).toEqual(payload);
      const change = only(await giveUp(store, claimed, T0 + SECOND));
      const record = await store.getDeadLetterRecord(change.deadLetterId);
      expect(record?.payload).toEqual(payload);
      await expect(store.verifySealing()).resolves.toBeUndefined();
    });

    it("rotation finds nothing to rewrite when every row has the current key", async () => {
      const store = await t.withCipher(new FieldCipher(randomBytes(32)));
      const { app } = await seedApp(store, [{}, {}]);
      for (let i = 0; i < 5; i++) await accept(store, app.id);
      const totals = await rotateKeys(store, { batchSize: 2 });
      expect(totals).toEqual({
        endpoints: { scanned: 2, rewritten: 0 },
        messages: { scanned: 5, rewritten: 0 },
        idempotency_keys: { scanned: 0, rewritten: 0 },
      });
    });
  });
}
