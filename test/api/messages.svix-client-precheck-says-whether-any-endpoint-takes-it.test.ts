import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startApi, type ApiHarness } from "./harness.js";

let api: ApiHarness;
beforeAll(async () => {
  api = await startApi();
});
afterAll(async () => api.close());

describe("message precheck through the official Svix client", () => {
  it("is active when an enabled endpoint would take the message, and stores nothing", async () => {
    const app = await api.svix.application.create({ name: "Precheck" });
    const active = (eventType: string, channels?: string[]) =>
      api.svix.message.precheck(app.id, { eventType, channels });
    expect(await active("invoice.paid")).toEqual({ active: false });

    await api.svix.endpoint.create(app.id, {
      url: "https://example.com/eu-invoices",
      filterTypes: ["invoice.paid"],
      channels: ["eu"],
    });
    await api.svix.endpoint.create(app.id, {
      url: "https://example.com/off",
      disabled: true,
    });
    expect(await active("invoice.paid", ["eu", "us"])).toEqual({ active: true });
    expect(await active("invoice.paid", ["us"])).toEqual({ active: false });
    expect(await active("invoice.paid")).toEqual({ active: false });
    expect(await active("user.created", ["eu"])).toEqual({ active: false });
    expect((await api.svix.message.list(app.id)).data).toEqual([]);
  });
});
