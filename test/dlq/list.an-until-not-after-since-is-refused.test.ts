/**
 * The dead-letter list with its time window the wrong way round (or empty) is refused naming
 * `until`, as a bulk replay and the recover call are. It answered an empty page, which reads as
 * "nothing failed in that window" to an operator who swapped the two.
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

describe("GET /api/v1/dlq with until not after since", () => {
  it("is refused with a 422 naming until", async () => {
    for (const [since, until] of [
      ["2026-03-02T10:00:00Z", "2026-03-02T09:00:00Z"],
      ["2026-03-02T10:00:00Z", "2026-03-02T11:00:00+01:00"],
    ]) {
      const r = await h.api<{ detail: { loc: string[]; msg: string }[] }>(
        "GET",
        `/api/v1/dlq?since=${encodeURIComponent(since!)}&until=${encodeURIComponent(until!)}`,
      );
      expect(r.status).toBe(422);
      expect(r.body.detail).toEqual([
        expect.objectContaining({ loc: ["query", "until"], msg: "must be later than since" }),
      ]);
    }
    const fine = await h.api(
      "GET",
      "/api/v1/dlq?since=2026-03-02T09:00:00Z&until=2026-03-02T10:00:00Z",
    );
    expect(fine.status).toBe(200);
  });
});
