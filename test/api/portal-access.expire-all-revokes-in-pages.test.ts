/**
 * expire-all reads the application's tokens a bounded page at a time, never the whole token table
 * at once, and still revokes every portal link of that application, however many there are.
 */
import { createHash } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import type { ApiToken } from "../../src/domain/types.js";
import { newId } from "../../src/ids.js";
import { startApi, type ApiHarness } from "./harness.js";

let api: ApiHarness;
beforeAll(async () => {
  api = await startApi();
});
afterAll(async () => api.close());

const aToken = (appId: string, name: string): ApiToken => {
  const id = newId("tok");
  return {
    id,
    name,
    scope: "app",
    appId,
    hash: createHash("sha256").update(id).digest("hex"),
    createdAt: Date.now(),
    revokedAt: null,
    expiresAt: Date.now() + 3_600_000,
    featureFlags: null,
  };
};

describe("expire-all", () => {
  it("revokes more portal links than a page holds, reading bounded pages", async () => {
    const mine = await api.svix.application.create({ name: "Mine" });
    const theirs = await api.svix.application.create({ name: "Theirs" });
    const links: ApiToken[] = [];
    for (let i = 0; i < 600; i++) {
      links.push(await api.store.createApiToken(aToken(mine.id, `portal:s${i}`)));
    }
    const integration = await api.store.createApiToken(aToken(mine.id, "integration"));
    const other = await api.store.createApiToken(aToken(theirs.id, "portal"));

    const reads = vi.spyOn(api.store, "listApiTokens");
    const res = await api.call("POST", `/api/v1/auth/app/${mine.id}/expire-all`, {});
    expect(res.status).toBe(204);
    expect(reads).toHaveBeenCalled();
    for (const [query] of reads.mock.calls) expect(query?.limit).toBeLessThanOrEqual(250);
    reads.mockRestore();

    for (const link of links) {
      expect((await api.store.findApiTokenByHash(link.hash))?.revokedAt).not.toBeNull();
    }
    expect((await api.store.findApiTokenByHash(integration.hash))?.revokedAt).toBeNull();
    expect((await api.store.findApiTokenByHash(other.hash))?.revokedAt).toBeNull();
  });
});
