/**
 * An idempotency key replays the first answer to a repeat of the same request. Logout is one path
 * (`POST /api/v1/auth/logout`, no body) that every application token calls about itself, so the
 * same key sent by a second token is a different request: it must revoke the second token, not
 * replay the first token's 204 and leave the second one working.
 */
import { afterAll, beforeAll, expect, it } from "vitest";
import { startApi, type ApiHarness } from "./harness.js";

let api: ApiHarness;
let appId = "";
beforeAll(async () => {
  api = await startApi();
  appId = (await api.svix.application.create({ name: "Logout keys" })).id;
});
afterAll(async () => api.close());

const portalToken = async (): Promise<string> =>
  (
    (await (await api.call("POST", `/api/v1/auth/app-portal-access/${appId}`, {})).json()) as {
      token: string;
    }
  ).token;

const as = (token: string, method: string, path: string, key?: string) =>
  api.call(method, path, undefined, {
    authorization: `Bearer ${token}`,
    ...(key ? { "idempotency-key": key } : {}),
  });

it("revokes each token that logs out, whatever key another token sent before", async () => {
  const first = await portalToken();
  const second = await portalToken();

  expect((await as(first, "POST", "/api/v1/auth/logout", "logout")).status).toBe(204);
  expect((await as(first, "GET", `/api/v1/app/${appId}`)).status).toBe(401);

  const out = await as(second, "POST", "/api/v1/auth/logout", "logout");
  expect(out.status).toBe(204);
  // The second token asked to be revoked and was told it was.
  expect((await as(second, "GET", `/api/v1/app/${appId}`)).status).toBe(401);
});
