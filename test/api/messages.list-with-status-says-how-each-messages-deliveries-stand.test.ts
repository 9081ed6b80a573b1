/**
 * hookline's `with_status=true` on the message list: each message with `deliveryStatus`, where
 * its deliveries stand (its endpoints counted by its latest delivery to each, and one word), while
 * the list without it stays Svix's and the Svix client still reads it.
 */
import { Svix } from "svix";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { deliveryOf, startHookline, type TestHookline } from "../support/hookline.js";
import { Receiver } from "../support/receiver.js";

let h: TestHookline;
let rx: Receiver;
beforeAll(async () => {
  h = await startHookline();
  // `/picky` refuses (400: permanent, dead at once) a payload that asks for it.
  rx = await Receiver.start((req) =>
    req.path === "/picky" && JSON.parse(req.body.toString()).refuse
      ? { status: 400 }
      : { status: 200 },
  );
});
afterAll(async () => {
  await h.stop();
  await rx.close();
});

interface Listed {
  id: string;
  deliveryStatus?: Record<string, unknown>;
}

describe("the message list with each message's delivery status", () => {
  it("says which messages were delivered, failed, wait, or went nowhere", async () => {
    const app = await h.svix.application.create({ name: "Status" });
    const endpoints = [];
    for (const path of ["/fine", "/picky"])
      endpoints.push(
        await h.svix.endpoint.create(app.id, { url: rx.url(path), filterTypes: ["order.placed"] }),
      );
    const [fine, picky] = endpoints.map((e) => e.id);
    const send = (payload: Record<string, unknown>, more: object = {}) =>
      h.svix.message.create(app.id, { eventType: "order.placed", payload, ...more });
    const delivered = await send({ n: 1 });
    const failed = await send({ refuse: true });
    const waiting = await send({ n: 2 }, { deliverAt: new Date(Date.now() + 3_600_000) });
    const nowhere = await send({}, { eventType: "order.cancelled" });
    await h.waitFor(deliveryOf(failed.id, "dead", picky));
    await h.waitFor(deliveryOf(failed.id, "succeeded", fine));
    for (const ep of [fine, picky]) await h.waitFor(deliveryOf(delivered.id, "succeeded", ep));

    const { status, body } = await h.api<{ data: Listed[] }>(
      "GET",
      `/api/v1/app/${app.id}/msg?with_content=false&with_status=true`,
    );
    expect(status).toBe(200);
    const of = (id: string) => body.data.find((m) => m.id === id)!.deliveryStatus;
    expect(of(delivered.id)).toEqual({
      statusText: "success",
      success: 2,
      pending: 0,
      sending: 0,
      fail: 0,
    });
    expect(of(failed.id)).toEqual({
      statusText: "fail",
      success: 1,
      pending: 0,
      sending: 0,
      fail: 1,
    });
    expect(of(waiting.id)).toMatchObject({ statusText: "pending", pending: 2 });
    expect(of(nowhere.id)).toEqual({
      statusText: "none",
      success: 0,
      pending: 0,
      sending: 0,
      fail: 0,
    });

    // Without it the list is Svix's, and the Svix client reads both.
    const plain = await h.api<{ data: Listed[] }>("GET", `/api/v1/app/${app.id}/msg`);
    expect(plain.body.data.map((m) => m.deliveryStatus)).toEqual([
      undefined,
      undefined,
      undefined,
      undefined,
    ]);
    const listed = await h.svix.message.list(app.id);
    expect(listed.data.map((m) => m.id)).toEqual([nowhere.id, waiting.id, failed.id, delivered.id]);
    const bad = await h.api("GET", `/api/v1/app/${app.id}/msg?with_status=yes`);
    expect(bad.status).toBe(422);
  });

  it("answers another application's portal link as if the application did not exist", async () => {
    const app = await h.svix.application.create({ name: "Mine" });
    const theirs = await h.svix.application.create({ name: "Theirs" });
    const { token } = await h.svix.authentication.appPortalAccess(theirs.id, {});
    const res = await fetch(`${h.url}/api/v1/app/${app.id}/msg?with_status=true`, {
      headers: { authorization: `Bearer ${token}` },
    });
    expect(res.status).toBe(404);
    const own = new Svix(token, { serverUrl: h.url });
    expect((await own.message.list(theirs.id)).data).toEqual([]);
  });
});
