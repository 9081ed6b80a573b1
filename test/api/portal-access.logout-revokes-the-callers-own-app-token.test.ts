/** Svix's logout (`svix.authentication.logout`): an application token revokes itself. */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Svix } from "svix";
import { startApi, type ApiHarness } from "./harness.js";

let api: ApiHarness;
beforeAll(async () => {
  api = await startApi();
});
afterAll(async () => api.close());

describe("logout through the official Svix client", () => {
  it("revokes the portal link's token that calls it, and no other", async () => {
    const app = await api.svix.application.create({ name: "Logout" });
    const one = await api.svix.authentication.appPortalAccess(app.id, {});
    const two = await api.svix.authentication.appPortalAccess(app.id, {});
    const asPortal = (token: string) => new Svix(token, { serverUrl: api.url });

    await asPortal(one.token).authentication.logout();
    await expect(asPortal(one.token).endpoint.list(app.id)).rejects.toMatchObject({ code: 401 });
    expect((await asPortal(two.token).endpoint.list(app.id)).data).toEqual([]);
  });

  it("is refused to an admin token, which stays valid", async () => {
    await expect(api.svix.authentication.logout()).rejects.toMatchObject({ code: 422 });
    expect((await api.svix.application.list()).data.length).toBeGreaterThan(0);
  });
});
