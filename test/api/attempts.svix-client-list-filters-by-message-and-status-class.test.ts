/**
 * The attempt lists' filters the Svix client sends: the attempted message's event types, channel
 * and tag, and the class of the HTTP status the endpoint answered.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { StatusCodeClass } from "svix";
import { attemptDue, startApi, type ApiHarness } from "./harness.js";

let api: ApiHarness;
let appId: string;
let epId: string;
const ids: Record<string, string> = {};

beforeAll(async () => {
  api = await startApi();
  appId = (await api.svix.application.create({ name: "Filters" })).id;
  epId = (await api.svix.endpoint.create(appId, { url: "https://example.com/f" })).id;
  const send = async (name: string, eventType: string, more: object = {}) => {
    ids[name] = (await api.svix.message.create(appId, { eventType, payload: {}, ...more })).id;
  };
  await send("paid", "invoice.paid", { channels: ["eu"], tags: ["vip"] });
  await send("failed", "invoice.failed", { channels: ["us"] });
  await send("created", "user.created", { tags: ["vip"] });
  await send("deleted", "user.deleted");
  // Each message gets one answer: 200, 404, 503 and none at all.
  const status = new Map([
    [ids.paid, 200],
    [ids.failed, 404],
    [ids.created, 503],
    [ids.deleted, null],
  ]);
  await attemptDue(api, (d) => ({
    status: status.get(d.messageId) ?? null,
    url: "https://example.com/f",
    response: "",
  }));
});
afterAll(async () => api.close());

const byEndpoint = async (options: object) =>
  (await api.svix.messageAttempt.listByEndpoint(appId, epId, options)).data
    .map((a) => a.msgId)
    .sort();
const expected = (...names: string[]) => names.map((n) => ids[n]).sort();

describe("attempt list filters through the official Svix client", () => {
  it("filters by the attempted message's event types, channel and tag", async () => {
    expect(await byEndpoint({ eventTypes: ["invoice.paid", "user.deleted"] })).toEqual(
      expected("paid", "deleted"),
    );
    expect(await byEndpoint({ channel: "us" })).toEqual(expected("failed"));
    expect(await byEndpoint({ tag: "vip" })).toEqual(expected("paid", "created"));
    expect(await byEndpoint({ tag: "vip", eventTypes: ["user.created"] })).toEqual(
      expected("created"),
    );
  });

  it("filters by the class of the status answered; CodeNone is no answer at all", async () => {
    expect(await byEndpoint({ statusCodeClass: StatusCodeClass.Code2xx })).toEqual(
      expected("paid"),
    );
    expect(await byEndpoint({ statusCodeClass: StatusCodeClass.Code4xx })).toEqual(
      expected("failed"),
    );
    expect(await byEndpoint({ statusCodeClass: StatusCodeClass.Code5xx })).toEqual(
      expected("created"),
    );
    expect(await byEndpoint({ statusCodeClass: StatusCodeClass.CodeNone })).toEqual(
      expected("deleted"),
    );
    expect(await byEndpoint({ statusCodeClass: StatusCodeClass.Code3xx })).toEqual([]);
  });

  it("applies the same filters to a message's attempts", async () => {
    const list = (msg: string, options: object) =>
      api.svix.messageAttempt.listByMsg(appId, msg, options);
    expect((await list(ids.paid!, { tag: "vip" })).data).toHaveLength(1);
    expect((await list(ids.paid!, { channel: "us" })).data).toHaveLength(0);
    const class4 = { statusCodeClass: StatusCodeClass.Code4xx, eventTypes: ["invoice.failed"] };
    expect((await list(ids.failed!, class4)).data).toHaveLength(1);
  });
});
