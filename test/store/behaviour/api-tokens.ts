/** API tokens: stored by hash, found by hash, listed without secrets, revoked once. */
import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import type { ApiToken } from "../../../src/domain/types.js";
import { ConflictError } from "../../../src/errors.js";
import { newId } from "../../../src/ids.js";
import { anApplication, HOUR, T0, type StoreUnderTest } from "./fixtures.js";

const hashOf = (plain: string): string => createHash("sha256").update(plain).digest("hex");

function aToken(overrides: Partial<ApiToken> = {}): ApiToken {
  return {
    id: newId("tok", T0),
    name: "ci",
    scope: "admin",
    appId: null,
    hash: hashOf(newId("tok")),
    createdAt: T0,
    revokedAt: null,
    expiresAt: null,
    featureFlags: null,
    ...overrides,
  };
}

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
      expect(await t.store.listApiTokens()).toEqual([{ ...a, revokedAt: T0 + 2 * HOUR }, b]);
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
      expect(await t.store.listApiTokens()).toEqual([other, admin]);
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
