/**
 * A POST sent again with its idempotency key (every Svix client sends one, and retries with it)
 * is answered with the first answer's bytes. For a new token or a portal link those bytes hold
 * the token itself, yet the replay said nothing of caching: a browser or a proxy could keep the
 * copy that the first answer's `Cache-Control: no-store` was there to prevent. A replay of such an
 * answer says `no-store` as the first one did, as every API answer does since
 * (caching.every-api-answer-is-kept-by-no-cache.test.ts).
 */
import { afterAll, beforeAll, expect, it } from "vitest";
import { startHookline, type TestHookline } from "../support/hookline.js";

let h: TestHookline;
beforeAll(async () => {
  h = await startHookline();
});
afterAll(async () => h.stop());

/** Posts `body` to `path` with `key`, and answers the status, the replay mark and Cache-Control. */
const post = async (path: string, key: string, body: unknown) => {
  const res = await fetch(`${h.url}${path}`, {
    method: "POST",
    headers: {
      authorization: `Bearer ${h.token}`,
      "content-type": "application/json",
      "idempotency-key": key,
    },
    body: JSON.stringify(body),
  });
  const text = await res.text();
  return {
    status: res.status,
    replayed: res.headers.get("idempotent-replayed"),
    cacheControl: res.headers.get("cache-control"),
    text,
  };
};

it("a token or a portal link answered again for its idempotency key says no-store, as the first answer did", async () => {
  const app = await h.svix.application.create({ name: "Acme", uid: "acme" });

  for (const [path, body] of [
    ["/api/v1/tokens", { name: "ci", scope: "app", appId: app.id }],
    [`/api/v1/auth/app-portal-access/${app.id}`, {}],
  ] as const) {
    const first = await post(path, `key-${path}`, body);
    expect(first.status).toBeLessThan(300);
    expect(first.cacheControl).toBe("no-store");
    expect(first.text).toContain("hl_app_");

    const again = await post(path, `key-${path}`, body);
    expect(again.replayed).toBe("true");
    // The same token, shown again: the copy must be kept nowhere either.
    expect(again.text).toBe(first.text);
    expect(again.cacheControl).toBe("no-store");
  }
});
