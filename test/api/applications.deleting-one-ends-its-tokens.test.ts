import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startApi, type ApiHarness } from "./harness.js";

let api: ApiHarness;
beforeAll(async () => {
  api = await startApi();
  await api.svix.application.create({ name: "A", uid: "app-a" });
  await api.svix.application.create({ name: "B", uid: "app-b" });
});
afterAll(async () => api.close());

describe("deleting an application", () => {
  it("deletes its tokens and portal links: refused at once, no longer listed", async () => {
    const make = async (appId: string) => {
      const res = await api.call("POST", "/api/v1/tokens", { name: "cust", scope: "app", appId });
      return (await res.json()) as { id: string; token: string };
    };
    const own = await make("app-a");
    const other = await make("app-b");
    const link = await api.call("POST", "/api/v1/auth/app-portal-access/app-a", {});
    const portal = ((await link.json()) as { token: string }).token;
    const status = async (token: string) =>
      (await api.call("GET", "/api/v1/event-type", undefined, { authorization: `Bearer ${token}` }))
        .status;
    // Used, so this process has checked them recently.
    for (const token of [own.token, portal, other.token]) expect(await status(token)).toBe(200);

    expect((await api.call("DELETE", "/api/v1/app/app-a")).status).toBe(204);

    expect(await status(own.token)).toBe(401);
    expect(await status(portal)).toBe(401);
    expect(await status(other.token)).toBe(200);
    const listed = (await (await api.call("GET", "/api/v1/tokens")).json()) as {
      data: { id: string; appId: string | null }[];
    };
    expect(listed.data.filter((t) => t.appId !== null).map((t) => t.id)).toEqual([other.id]);
  });
});
