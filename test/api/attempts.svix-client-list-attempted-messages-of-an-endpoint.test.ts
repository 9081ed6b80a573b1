/**
 * svix.messageAttempt.listAttemptedMessages: the messages sent to one endpoint, newest first, each
 * with where its latest delivery there stands.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MessageStatus } from "svix";
import { attemptDue, startApi, type ApiHarness } from "./harness.js";

let api: ApiHarness;
let appId: string;
let epA: string;
let epB: string;
const ids: Record<string, string> = {};
const later = new Date(Date.now() + 3_600_000);
later.setMilliseconds(0);

beforeAll(async () => {
  api = await startApi();
  appId = (await api.svix.application.create({ name: "Endpoint messages" })).id;
  epA = (
    await api.svix.endpoint.create(appId, { url: "https://example.com/a", filterTypes: ["a"] })
  ).id;
  epB = (
    await api.svix.endpoint.create(appId, { url: "https://example.com/b", filterTypes: ["b"] })
  ).id;
  const send = async (name: string, eventType: string, more: object = {}) => {
    ids[name] = (
      await api.svix.message.create(appId, { eventType, payload: { name }, ...more })
    ).id;
  };
  await send("ok", "a", { channels: ["eu"], tags: ["vip"] });
  await send("retrying", "a", { channels: ["us"] });
  await send("forB", "b");
  await send("later", "a", { deliverAt: later });
  await attemptDue(api, (d) => ({
    status: d.messageId === ids.retrying ? 500 : 200,
    url: "https://example.com",
    response: "",
  }));
});
afterAll(async () => api.close());

const list = async (endpointId: string, options: object = {}) =>
  (await api.svix.messageAttempt.listAttemptedMessages(appId, endpointId, options)).data;
const names = (data: { id: string }[]) =>
  data.map((m) => Object.keys(ids).find((k) => ids[k] === m.id));

describe("an endpoint's messages through the official Svix client", () => {
  it("lists the messages sent to the endpoint, newest first, with their status there", async () => {
    const data = await list(epA);
    expect(names(data)).toEqual(["later", "retrying", "ok"]);
    const [l, r, o] = data;
    expect(o).toMatchObject({
      eventType: "a",
      channels: ["eu"],
      tags: ["vip"],
      payload: { name: "ok" },
      status: MessageStatus.Success,
      statusText: "success",
      nextAttempt: null,
    });
    expect(r).toMatchObject({ status: MessageStatus.Pending, statusText: "pending" });
    expect(r?.nextAttempt).toBeInstanceOf(Date);
    expect(l).toMatchObject({
      status: MessageStatus.Pending,
      deliverAt: later,
      nextAttempt: later,
    });
    expect(names(await list(epB))).toEqual(["forB"]);
  });

  it("filters by status, channel, tag and event types, and leaves out the payload on request", async () => {
    expect(names(await list(epA, { status: MessageStatus.Success }))).toEqual(["ok"]);
    expect(names(await list(epA, { status: MessageStatus.Pending }))).toEqual([
      "later",
      "retrying",
    ]);
    expect(names(await list(epA, { status: MessageStatus.Fail }))).toEqual([]);
    expect(names(await list(epA, { channel: "us" }))).toEqual(["retrying"]);
    expect(names(await list(epA, { tag: "vip" }))).toEqual(["ok"]);
    expect(names(await list(epA, { eventTypes: ["b"] }))).toEqual([]);
    const bare = await list(epA, { withContent: false });
    expect(bare.map((m) => m.payload)).toEqual([{}, {}, {}]);
  });

  it("pages through them", async () => {
    const first = await api.svix.messageAttempt.listAttemptedMessages(appId, epA, { limit: 2 });
    expect(names(first.data)).toEqual(["later", "retrying"]);
    expect(first.done).toBe(false);
    const rest = await api.svix.messageAttempt.listAttemptedMessages(appId, epA, {
      limit: 2,
      iterator: first.iterator,
    });
    expect(names(rest.data)).toEqual(["ok"]);
    expect(rest.done).toBe(true);
  });
});
