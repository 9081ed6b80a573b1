/**
 * The dead-letter list's `message_id` filter takes a message's id alone, and refuses anything else
 * with a 422 naming it. Records are kept by the message's id, so its eventId (which the message's
 * own routes take) or a mistyped id was answered with an empty page: "nothing of this message was
 * given up on", whatever was.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startHookline, type TestHookline } from "../support/hookline.js";

let h: TestHookline;
beforeAll(async () => {
  h = await startHookline();
});
afterAll(async () => {
  await h.stop();
});

describe("GET /api/v1/dlq?message_id=", () => {
  it("refuses what is no message id, naming message_id", async () => {
    for (const bad of ["order-1234", "msg_123", "evt_01KBBBBBBBBBBBBBBBBBBBBBBB"]) {
      const r = await h.api<{ detail: { loc: string[]; msg: string }[] }>(
        "GET",
        `/api/v1/dlq?message_id=${encodeURIComponent(bad)}`,
      );
      expect(r.status, bad).toBe(422);
      expect(r.body.detail).toEqual([
        expect.objectContaining({
          loc: ["query", "message_id"],
          msg: expect.stringMatching(/message id/),
        }),
      ]);
    }
  });

  it("takes a message id, with other filters and a page's iterator", async () => {
    const id = "msg_01KBBBBBBBBBBBBBBBBBBBBBBB";
    const r = await h.api<{ data: unknown[]; done: boolean }>(
      "GET",
      `/api/v1/dlq?message_id=${id}&state=open&limit=1&iterator=dlq_01KBBBBBBBBBBBBBBBBBBBBBBB`,
    );
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ data: [], done: true });
  });
});
