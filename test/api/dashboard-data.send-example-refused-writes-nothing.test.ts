/**
 * send-example refuses (422) an endpoint that would not receive the test event — disabled, or not
 * taking its event type or channel — before writing anything: no message is left behind.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startApi, type ApiHarness } from "./harness.js";

let api: ApiHarness;
let appId = "";
beforeAll(async () => {
  api = await startApi();
  appId = (await api.svix.application.create({ name: "A" })).id;
});
afterAll(async () => api.close());

const messages = async (): Promise<unknown[]> => {
  const res = await api.call("GET", `/api/v1/app/${appId}/msg`);
  expect(res.status).toBe(200);
  return ((await res.json()) as { data: unknown[] }).data;
};

const sendExample = (endpointId: string, eventType = "ping.test") =>
  api.call("POST", `/api/v1/app/${appId}/endpoint/${endpointId}/send-example`, { eventType });

describe("send-example to an endpoint that would not receive it", () => {
  it("answers 422 for a disabled endpoint and stores no message", async () => {
    const ep = await api.svix.endpoint.create(appId, {
      url: "https://example.com/off",
      disabled: true,
    });
    const res = await sendExample(ep.id);
    expect(res.status).toBe(422);
    expect(await res.json()).toMatchObject({ detail: [{ loc: ["body", "eventType"] }] });
    expect(await messages()).toEqual([]);
  });

  it("answers 422 when the endpoint filters out the type or wants a channel, storing nothing", async () => {
    const typed = await api.svix.endpoint.create(appId, {
      url: "https://example.com/typed",
      filterTypes: ["invoice.paid"],
    });
    const channelled = await api.svix.endpoint.create(appId, {
      url: "https://example.com/channelled",
      channels: ["eu"],
    });
    for (const ep of [typed, channelled]) {
      const res = await sendExample(ep.id);
      expect(res.status, ep.url).toBe(422);
    }
    expect(await messages()).toEqual([]);
  });

  it("answers 422 naming exampleIndex when the example is not a JSON object, storing nothing", async () => {
    await api.svix.eventType.create({
      name: "listed.example",
      description: "its examples are a string and a list",
      schemas: { "1": { type: "object", examples: ["just text", [1, 2]] } },
    });
    const ep = await api.svix.endpoint.create(appId, { url: "https://example.com/examples" });
    for (const exampleIndex of [0, 1]) {
      const res = await api.call("POST", `/api/v1/app/${appId}/endpoint/${ep.id}/send-example`, {
        eventType: "listed.example",
        exampleIndex,
      });
      expect(res.status).toBe(422);
      expect(await res.json()).toMatchObject({ detail: [{ loc: ["body", "exampleIndex"] }] });
    }
    expect(await messages()).toEqual([]);
  });

  it("still sends to an endpoint that takes the type (202, one message)", async () => {
    const ep = await api.svix.endpoint.create(appId, {
      url: "https://example.com/typed-ok",
      filterTypes: ["invoice.paid"],
    });
    const res = await sendExample(ep.id, "invoice.paid");
    expect(res.status).toBe(202);
    expect(await messages()).toHaveLength(1);
  });
});
