/**
 * What a Svix client user does with message attempts: list them by endpoint and by message with
 * every option the client has (statuses, status classes, filters, a time window, content, the
 * attempts' messages, expanded statuses), page on to the end, get one, list the attempted messages
 * and destinations, and resend, naming things by id or by uid and eventId alike. Every call must
 * be taken.
 */
import { MessageStatus, StatusCodeClass } from "svix";
import { afterAll, beforeAll, expect, it } from "vitest";
import { attemptDue, startApi, type ApiHarness } from "./harness.js";

let api: ApiHarness;
let epId = "";
const msgIds: string[] = [];
let from = new Date();
let to = new Date();
beforeAll(async () => {
  api = await startApi();
  await api.svix.application.create({ name: "Shop", uid: "shop" });
  epId = (await api.svix.endpoint.create("shop", { url: "http://127.0.0.1:9/h", uid: "orders" }))
    .id;
  for (const [eventType, eventId, tags] of [
    ["order.placed", "order-1", ["vip"]],
    ["order.shipped", "order-2", ["vip"]],
    ["order.placed", "order-3", []],
  ] as const) {
    const m = await api.svix.message.create("shop", {
      eventType,
      eventId,
      payload: { eventId },
      channels: ["eu"],
      tags: [...tags],
    });
    msgIds.push(m.id);
  }
  from = new Date(Date.now() - 60_000);
  // The first message's delivery fails, the others succeed.
  await attemptDue(api, (d) =>
    d.messageId === msgIds[0]
      ? { status: 500, url: "http://127.0.0.1:9/h", response: "no" }
      : { status: 200, url: "http://127.0.0.1:9/h", response: "ok" },
  );
  to = new Date(Date.now() + 60_000);
});
afterAll(async () => api.close());

const every = async <T extends { id: string }>(
  list: (iterator: string | null | undefined) => Promise<{
    data: T[];
    done: boolean;
    iterator?: string | null;
  }>,
): Promise<T[]> => {
  const seen: T[] = [];
  let iterator: string | null | undefined = undefined;
  for (;;) {
    const page = await list(iterator);
    seen.push(...page.data);
    if (page.done) return seen;
    iterator = page.iterator;
  }
};

it("lists an endpoint's attempts with every option, by id or uid", async () => {
  const attempts = api.svix.messageAttempt;
  const all = await every((iterator) =>
    attempts.listByEndpoint("shop", "orders", { limit: 1, iterator }),
  );
  expect(all.map((a) => a.msgId)).toEqual([...msgIds].reverse());
  const filtered = await every((iterator) =>
    attempts.listByEndpoint("shop", epId, {
      limit: 1,
      iterator,
      status: MessageStatus.Success,
      statusCodeClass: StatusCodeClass.Code2xx,
      channel: "eu",
      tag: "vip",
      eventTypes: ["order.shipped", "order.placed"],
      before: to,
      after: from,
      withContent: true,
      withMsg: true,
      expandedStatuses: true,
    }),
  );
  expect(filtered.map((a) => a.msgId)).toEqual([msgIds[1]]);
  expect(filtered[0]!.msg).toMatchObject({ eventId: "order-2", payload: { eventId: "order-2" } });
  const failed = await attempts.listByEndpoint("shop", "orders", {
    status: MessageStatus.Fail,
    statusCodeClass: StatusCodeClass.Code5xx,
  });
  expect(failed.data.map((a) => a.msgId)).toEqual([msgIds[0]]);
});

it("lists a message's attempts with every option, by id or eventId, and gets one", async () => {
  const attempts = api.svix.messageAttempt;
  const byMsg = await attempts.listByMsg("shop", "order-1", {
    limit: 5,
    status: MessageStatus.Fail,
    statusCodeClass: StatusCodeClass.Code5xx,
    channel: "eu",
    tag: "vip",
    endpointId: "orders",
    eventTypes: ["order.placed"],
    before: to,
    after: from,
    withContent: false,
    expandedStatuses: true,
  });
  expect(byMsg.data).toHaveLength(1);
  const one = byMsg.data[0]!;
  expect(await attempts.get("shop", msgIds[0]!, one.id, { expandedStatuses: true })).toMatchObject({
    id: one.id,
    responseStatusCode: 500,
  });
  expect((await attempts.get("shop", "order-1", one.id)).id).toBe(one.id);
});

it("lists attempted messages and destinations with every option, and resends", async () => {
  const attempts = api.svix.messageAttempt;
  const messages = await every((iterator) =>
    attempts.listAttemptedMessages("shop", "orders", {
      limit: 1,
      iterator,
      status: MessageStatus.Success,
      channel: "eu",
      tag: "vip",
      eventTypes: ["order.shipped"],
      before: to,
      after: from,
      withContent: true,
      expandedStatuses: true,
    }),
  );
  expect(messages.map((m) => m.id)).toEqual([msgIds[1]]);
  const destinations = await every((iterator) =>
    attempts.listAttemptedDestinations("shop", "order-1", { limit: 1, iterator }),
  );
  expect(destinations.map((d) => d.id)).toEqual([epId]);

  await attempts.resend("shop", "order-1", "orders");
  await attemptDue(api, () => ({ status: 200, url: "http://127.0.0.1:9/h", response: "ok" }));
  const after = await attempts.listByMsg("shop", msgIds[0]!, { status: MessageStatus.Success });
  expect(after.data).toHaveLength(1);
});
