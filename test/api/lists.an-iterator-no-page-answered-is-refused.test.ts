/**
 * A list's iterator is the last item of the page before: an id of the listed kind (`msg_…` for
 * messages and attempted messages, `atmpt_…` for attempts, `ep_…` for endpoints and attempted
 * destinations …), or a name for event types. Any other text is no page's iterator: it was
 * answered 200 with an empty page and `done: true`, as if the list ended there, so a mangled
 * cursor silently lost the rest. It is refused, 422 naming `iterator`; the Svix client, following
 * the iterators it is given one item at a time, still reads every list to its end.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { deliveryOf, startHookline, type TestHookline } from "../support/hookline.js";
import { Receiver } from "../support/receiver.js";

let t: TestHookline;
let rx: Receiver;
let appId = "";
let epIds: string[] = [];
let msgIds: string[] = [];
beforeAll(async () => {
  t = await startHookline();
  rx = await Receiver.start();
  for (const name of ["it.one", "it.two"]) {
    await t.svix.eventType.create({ name, description: name });
  }
  for (const name of ["first", "second"]) await t.svix.application.create({ name });
  appId = (await t.svix.application.create({ name: "paged" })).id;
  epIds = [];
  for (const path of ["/a", "/b"]) {
    epIds.push((await t.svix.endpoint.create(appId, { url: rx.url(path) })).id);
  }
  msgIds = [];
  for (const eventType of ["it.one", "it.two"]) {
    const msg = await t.svix.message.create(appId, { eventType, payload: {} });
    msgIds.push(msg.id);
    for (const ep of epIds) await t.waitFor(deliveryOf(msg.id, "succeeded", ep));
  }
});
afterAll(async () => {
  await t.stop();
  await rx.close();
});

/** Every item of a list, read one per page as the Svix client's caller would. */
async function readAll<T>(
  list: (
    iterator: string | undefined,
  ) => Promise<{ data: T[]; iterator?: string | null; done: boolean }>,
): Promise<T[]> {
  const items: T[] = [];
  let iterator: string | undefined;
  for (let pages = 0; pages < 20; pages++) {
    const page = await list(iterator);
    items.push(...page.data);
    if (page.done) return items;
    iterator = page.iterator ?? undefined;
  }
  throw new Error("the list never ended");
}

describe("paging one item at a time with the Svix client", () => {
  it("reaches the end of every list", async () => {
    const { svix } = t;
    const o = (iterator: string | undefined) => ({ limit: 1, iterator });
    const [ep0, ep1] = epIds as [string, string];
    const [m0] = msgIds as [string];
    expect(await readAll((i) => svix.application.list(o(i)))).toHaveLength(3);
    expect(await readAll((i) => svix.endpoint.list(appId, o(i)))).toHaveLength(2);
    expect(await readAll((i) => svix.eventType.list(o(i)))).toHaveLength(2);
    expect(await readAll((i) => svix.message.list(appId, o(i)))).toHaveLength(2);
    const attempts = svix.messageAttempt;
    expect(await readAll((i) => attempts.listByEndpoint(appId, ep0, o(i)))).toHaveLength(2);
    expect(await readAll((i) => attempts.listByMsg(appId, m0, o(i)))).toHaveLength(2);
    expect(await readAll((i) => attempts.listAttemptedMessages(appId, ep1, o(i)))).toHaveLength(2);
    expect(await readAll((i) => attempts.listAttemptedDestinations(appId, m0, o(i)))).toHaveLength(
      2,
    );
  });
});

describe("an iterator no page answered", () => {
  it("is refused, 422 naming iterator, on every list", async () => {
    const [ep0] = epIds as [string];
    const [m0] = msgIds as [string];
    const lists = [
      "/api/v1/app",
      `/api/v1/app/${appId}/endpoint`,
      `/api/v1/app/${appId}/msg`,
      `/api/v1/app/${appId}/attempt/endpoint/${ep0}`,
      `/api/v1/app/${appId}/attempt/msg/${m0}`,
      `/api/v1/app/${appId}/endpoint/${ep0}/msg`,
      `/api/v1/app/${appId}/msg/${m0}/endpoint`,
      "/api/v1/tokens",
      "/api/v1/dlq",
      "/api/v1/dlq/overflow",
      "/api/v1/dlq/replay",
      "/api/v1/operational-webhook/endpoint",
    ];
    // An id of another kind is no iterator of these lists either.
    for (const iterator of ["garbage", m0.replace("msg_", "dlv_")]) {
      for (const path of lists) {
        const res = await t.api<{ detail: { loc: unknown[] }[] }>(
          "GET",
          `${path}?iterator=${iterator}`,
        );
        expect(res.status, `${path}?iterator=${iterator}`).toBe(422);
        expect(res.body.detail.map((p) => p.loc)).toEqual([["query", "iterator"]]);
      }
    }
    const types = await t.api("GET", "/api/v1/event-type?iterator=no%20name");
    expect(types.status).toBe(422);
  });

  it("is taken when it is an id of the kind, even past the end: that list has ended", async () => {
    // Messages are listed newest first: after the newer one comes the older.
    const [older, newer] = msgIds as [string, string];
    expect((await t.svix.message.list(appId, { iterator: newer })).data.map((m) => m.id)).toEqual([
      older,
    ]);
    const none = await t.api<{ data: unknown[]; done: boolean }>(
      "GET",
      `/api/v1/app/${appId}/msg?iterator=${older}`,
    );
    expect(none.status).toBe(200);
    expect(none.body).toMatchObject({ data: [], done: true });
  });
});
