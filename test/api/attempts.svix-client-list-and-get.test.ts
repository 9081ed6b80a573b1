import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MessageStatus } from "svix";
import { attemptDue, startApi, type ApiHarness } from "./harness.js";

let api: ApiHarness;
let appId: string;
let epA: string;
let epB: string;
let msgId: string;

/** Claims every due delivery and records one attempt for each: 500 for epA, 200 for epB. */
const attemptAllDue = () =>
  attemptDue(api, (d) =>
    d.endpointId === epB
      ? { status: 200, url: "https://example.com/b", response: "thanks" }
      : { status: 500, url: "https://example.com/a", response: "boom" },
  );

beforeAll(async () => {
  api = await startApi();
  appId = (await api.svix.application.create({ name: "Attempts", uid: "att-app" })).id;
  epA = (await api.svix.endpoint.create(appId, { url: "https://example.com/a", uid: "ep-a" })).id;
  epB = (await api.svix.endpoint.create(appId, { url: "https://example.com/b" })).id;
  msgId = (
    await api.svix.message.create(appId, {
      eventType: "ping",
      eventId: "ping-1",
      payload: { p: 1 },
    })
  ).id;
  await attemptAllDue();
});
afterAll(async () => api.close());

describe("message attempts through the official Svix client", () => {
  it("lists an endpoint's attempts with Svix statuses and hookline's fields", async () => {
    const page = await api.svix.messageAttempt.listByEndpoint(appId, "ep-a");
    expect(page.data).toHaveLength(1);
    const a = page.data[0]!;
    expect(a).toMatchObject({
      msgId,
      endpointId: epA,
      url: "https://example.com/a",
      response: "boom",
      responseStatusCode: 500,
      responseDurationMs: 12,
      status: MessageStatus.Fail,
      statusText: "fail",
      triggerType: 0,
    });
    expect(a.timestamp).toBeInstanceOf(Date);

    const raw = await api.call("GET", `/api/v1/app/${appId}/attempt/endpoint/${epA}`);
    const body = (await raw.json()) as { data: Record<string, unknown>[] };
    expect(body.data[0]).toMatchObject({ trigger: "first", outcome: "retryable", error: null });
  });

  it("filters by status and lists a message's attempts, optionally for one endpoint", async () => {
    const ok = await api.svix.messageAttempt.listByMsg(appId, msgId, {
      status: MessageStatus.Success,
    });
    expect(ok.data.map((a) => a.endpointId)).toEqual([epB]);
    const failed = await api.svix.messageAttempt.listByMsg(appId, "ping-1", {
      status: MessageStatus.Fail,
    });
    expect(failed.data.map((a) => a.endpointId)).toEqual([epA]);
    const all = await api.svix.messageAttempt.listByMsg(appId, msgId);
    expect(all.data).toHaveLength(2);
    const one = await api.svix.messageAttempt.listByMsg(appId, msgId, { endpointId: epB });
    expect(one.data.map((a) => a.status)).toEqual([MessageStatus.Success]);
    const pending = await api.svix.messageAttempt.listByMsg(appId, msgId, {
      status: MessageStatus.Pending,
    });
    expect(pending.data).toEqual([]);
  });

  it("gets one attempt, and 404s when it belongs to another message", async () => {
    const [first] = (await api.svix.messageAttempt.listByEndpoint(appId, epB)).data;
    const got = await api.svix.messageAttempt.get(appId, msgId, first!.id);
    expect(got).toMatchObject({ id: first!.id, status: MessageStatus.Success, response: "thanks" });
    const other = await api.svix.message.create(appId, { eventType: "other", payload: {} });
    await expect(api.svix.messageAttempt.get(appId, other.id, first!.id)).rejects.toMatchObject({
      code: 404,
    });
  });

  it("includes the message with with_msg", async () => {
    const page = await api.svix.messageAttempt.listByEndpoint(appId, epB, { withMsg: true });
    expect(page.data[0]?.msg).toMatchObject({ id: msgId, payload: { p: 1 } });
  });

  it("lists the endpoints a message went to with the state of each delivery", async () => {
    const page = await api.svix.messageAttempt.listAttemptedDestinations(appId, msgId);
    const byId = new Map(page.data.map((d) => [d.id, d]));
    expect(byId.get(epA)).toMatchObject({
      status: MessageStatus.Pending,
      url: "https://example.com/a",
    });
    expect(byId.get(epA)?.nextAttempt).toBeInstanceOf(Date);
    expect(byId.get(epB)).toMatchObject({ status: MessageStatus.Success, statusText: "success" });
    expect(page.done).toBe(true);
  });

  it("resends: a new pending delivery appears and its attempt is manual", async () => {
    const wakes = api.engine.wakes;
    const before = await api.store.listDeliveries(msgId);
    await api.svix.messageAttempt.resend(appId, msgId, epB);
    expect(api.engine.wakes).toBe(wakes + 1);
    const after = await api.store.listDeliveries(msgId);
    expect(after).toHaveLength(before.length + 1);
    const added = after.find((d) => !before.some((b) => b.id === d.id))!;
    expect(added).toMatchObject({ endpointId: epB, state: "pending", origin: "resend" });

    await attemptAllDue();
    const manual = await api.svix.messageAttempt.listByEndpoint(appId, epB);
    expect(manual.data[0]?.triggerType).toBe(1);
  });
});
