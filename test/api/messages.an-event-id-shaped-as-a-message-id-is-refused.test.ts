/**
 * Messages are found by id or eventId, the id first. An eventId shaped as a message id (`msg_` and
 * 26 characters) could be another message's id: the message holding it could never be fetched by
 * it, and a retry carrying it would not find its first post. Such an eventId is refused, 422 naming
 * `eventId`, and nothing is written; one merely starting so is kept and found by it.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { newId } from "../../src/ids.js";
import { startHookline, type TestHookline } from "../support/hookline.js";

let t: TestHookline;
let appId = "";
beforeAll(async () => {
  t = await startHookline();
  appId = (await t.svix.application.create({ name: "shop" })).id;
});
afterAll(() => t.stop());

type Refusal = { detail: { loc: unknown[]; msg: string }[] };
const post = (eventId: string) =>
  t.api<Refusal & { id: string }>("POST", `/api/v1/app/${appId}/msg`, {
    eventType: "order.paid",
    eventId,
    payload: { n: 1 },
  });

describe("an eventId shaped as a message id", () => {
  it("is refused, naming eventId, whether or not a message has that id", async () => {
    const first = await t.svix.message.create(appId, { eventType: "order.paid", payload: {} });
    for (const eventId of [first.id, newId("msg")]) {
      const res = await post(eventId);
      expect(res.status, eventId).toBe(422);
      expect(res.body.detail.map((p) => p.loc)).toEqual([["body", "eventId"]]);
      expect(res.body.detail[0]!.msg).toContain("message id");
    }
    const listed = await t.svix.message.list(appId);
    expect(listed.data.map((m) => m.id)).toEqual([first.id]);
    expect((await t.svix.message.get(appId, first.id)).eventId).toBeNull();
  });

  it("is kept when it only starts so, and the message is found by it", async () => {
    for (const eventId of ["msg_order-42", `msg_${"0".repeat(27)}`]) {
      const res = await post(eventId);
      expect(res.status, eventId).toBe(202);
      expect((await t.svix.message.get(appId, eventId)).id).toBe(res.body.id);
    }
  });
});
