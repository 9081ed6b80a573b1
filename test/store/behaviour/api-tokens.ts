/** API tokens: stored by hash, found by hash, listed a page at a time, revoked once. */
import { describe, expect, it } from "vitest";
import { ConflictError } from "../../../src/errors.js";
import { newId } from "../../../src/ids.js";
import { anApplication, aToken, hashOf, HOUR, T0, type StoreUnderTest } from "./fixtures.js";

export function apiTokenBehaviour(t: StoreUnderTest): void {
  describe("API tokens", () => {
    it("stores a token and finds it by its hash", async () => {
      const admin = await t.store.createApiToken(aToken({ hash: hashOf("secret-a") }));
      const app = await t.store.createApiToken(
        aToken({ name: "acme", scope: "app", appId: "app_x", hash: hashOf("secret-b") }),
      );
      expect(await t.store.findApiTokenByHash(hashOf("secret-a"))).toEqual(admin);
      expect(await t.store.findApiTokenByHash(hashOf("secret-b"))).toEqual(app);
      expect(await t.store.findApiTokenByHash(hashOf("nobody"))).toBeNull();
    });

    it("keeps the feature flags a token was given", async () => {
      const flagged = await t.store.createApiToken(
        aToken({ scope: "app", appId: "app_x", featureFlags: ["beta", "vip"] }),
      );
      expect(await t.store.findApiTokenByHash(flagged.hash)).toEqual(flagged);
      const none = await t.store.createApiToken(aToken({ featureFlags: [] }));
      expect((await t.store.findApiTokenByHash(none.hash))?.featureFlags).toBeNull();
    });

    it("refuses a second token with the same hash", async () => {
      await t.store.createApiToken(aToken({ hash: hashOf("same") }));
      await expect(t.store.createApiToken(aToken({ hash: hashOf("same") }))).rejects.toBeInstanceOf(
        ConflictError,
      );
    });

    it("lists every token, oldest first, revoked ones too", async () => {
      const a = await t.store.createApiToken(aToken({ id: newId("tok", T0) }));
      const b = await t.store.createApiToken(aToken({ id: newId("tok", T0 + HOUR) }));
      await t.store.revokeApiToken(a.id, T0 + 2 * HOUR);
      expect(await t.store.listApiTokens({ limit: 10 })).toEqual({
        data: [{ ...a, revokedAt: T0 + 2 * HOUR }, b],
        iterator: b.id,
        done: true,
      });
    });

    it("lists a page at a time, either way round, and by application unrevoked only", async () => {
      const ids = [0, 1, 2, 3, 4].map((i) => newId("tok", T0 + i));
      const [a, b, c, d, e] = await Promise.all(
        ids.map((id, i) =>
          t.store.createApiToken(
            aToken({ id, ...(i % 2 ? {} : { scope: "app", appId: "app_x" }) }),
          ),
        ),
      );
      const first = await t.store.listApiTokens({ limit: 2 });
      expect(first).toEqual({ data: [a, b], iterator: b!.id, done: false });
      const rest = await t.store.listApiTokens({ limit: 3, iterator: first.iterator });
      expect(rest).toEqual({ data: [c, d, e], iterator: e!.id, done: true });
      const back = await t.store.listApiTokens({ limit: 2, order: "descending" });
      expect(back.data).toEqual([e, d]);

      await t.store.revokeApiToken(c!.id, T0 + HOUR);
      const live = await t.store.listApiTokens({ limit: 1, appId: "app_x", unrevoked: true });
      expect(live).toEqual({ data: [a], iterator: a!.id, done: false });
      const more = await t.store.listApiTokens({
        limit: 5,
        iterator: live.iterator,
        appId: "app_x",
        unrevoked: true,
      });
      expect(more).toEqual({ data: [e], iterator: e!.id, done: true });
    });

    it("deletes an application's tokens with it; others stay", async () => {
      const a = await t.store.createApplication(anApplication());
      const b = await t.store.createApplication(anApplication());
      await t.store.createApiToken(aToken({ scope: "app", appId: a.id }));
      await t.store.createApiToken(
        aToken({ id: newId("tok", T0 + 1), scope: "app", appId: a.id, expiresAt: T0 + HOUR }),
      );
      const other = await t.store.createApiToken(
        aToken({ id: newId("tok", T0 + 2), scope: "app", appId: b.id }),
      );
      const admin = await t.store.createApiToken(aToken({ id: newId("tok", T0 + 3) }));
      await t.store.deleteApplication(a.id);
      expect((await t.store.listApiTokens({ limit: 10 })).data).toEqual([other, admin]);
    });

    it("revokes a token once: a second revocation keeps the first time", async () => {
      const tok = await t.store.createApiToken(aToken());
      expect(await t.store.revokeApiToken(tok.id, T0 + HOUR)).toEqual({
        ...tok,
        revokedAt: T0 + HOUR,
      });
      expect((await t.store.revokeApiToken(tok.id, T0 + 2 * HOUR))?.revokedAt).toBe(T0 + HOUR);
      expect((await t.store.findApiTokenByHash(tok.hash))?.revokedAt).toBe(T0 + HOUR);
      expect(await t.store.revokeApiToken("tok_missing", T0)).toBeNull();
    });
  });
}
