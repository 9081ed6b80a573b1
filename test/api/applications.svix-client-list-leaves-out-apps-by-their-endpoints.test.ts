import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startApi, type ApiHarness } from "./harness.js";

let api: ApiHarness;
beforeAll(async () => {
  api = await startApi();
});
afterAll(async () => api.close());

describe("the application list's exclude options through the official Svix client", () => {
  it("leaves out applications without endpoints, or whose endpoints are all disabled", async () => {
    await api.svix.application.create({ name: "No endpoints" });
    const live = await api.svix.application.create({ name: "Live" });
    await api.svix.endpoint.create(live.id, { url: "https://example.com/a", disabled: true });
    await api.svix.endpoint.create(live.id, { url: "https://example.com/b" });
    const off = await api.svix.application.create({ name: "Switched off" });
    await api.svix.endpoint.create(off.id, { url: "https://example.com/c", disabled: true });

    const names = async (options: object) =>
      (await api.svix.application.list(options)).data.map((a) => a.name);
    expect(await names({})).toEqual(["No endpoints", "Live", "Switched off"]);
    expect(await names({ excludeAppsWithNoEndpoints: true })).toEqual(["Live", "Switched off"]);
    expect(await names({ excludeAppsWithDisabledEndpoints: true })).toEqual([
      "No endpoints",
      "Live",
    ]);
    // hookline has no Svix Play endpoints: asking to leave those out leaves out nothing.
    expect(
      await names({ excludeAppsWithNoEndpoints: true, excludeAppsWithSvixPlayEndpoints: true }),
    ).toEqual(["Live", "Switched off"]);
    const page = await api.svix.application.list({ excludeAppsWithNoEndpoints: true, limit: 1 });
    expect(page.data.map((a) => a.id)).toEqual([live.id]);
    const next = await api.svix.application.list({
      excludeAppsWithNoEndpoints: true,
      limit: 1,
      iterator: page.iterator,
    });
    expect(next.data.map((a) => a.id)).toEqual([off.id]);
  });
});
