import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startApi, type ApiHarness } from "./harness.js";

let api: ApiHarness;
beforeAll(async () => {
  api = await startApi();
  await api.svix.application.create({ name: "A", uid: "app-a" });
});
afterAll(async () => api.close());

describe("revoking a token", () => {
  it("refuses the token on its very next request, even right after it was used", async () => {
    const created = await api.call("POST", "/api/v1/tokens", { name: "ops", scope: "admin" });
    const { id, token } = (await created.json()) as { id: string; token: string };
    const auth = { authorization: `Bearer ${token}` };
    // Used, so this process has checked it recently.
    expect((await api.call("GET", "/api/v1/app", undefined, auth)).status).toBe(200);
    expect((await api.call("DELETE", `/api/v1/tokens/${id}`)).status).toBe(204);
    expect((await api.call("GET", "/api/v1/app", undefined, auth)).status).toBe(401);
  });
});
