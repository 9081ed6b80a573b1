/**
 * The message and attempt lists leave out the instants `before` and `after` name, so a `before`
 * not later than `after` (the two swapped, most often) lists nothing: it was answered 200 with an
 * empty last page, which reads as "nothing was sent in that window". It is refused, 422 naming
 * `before`, as a dead-letter window and an endpoint's stats window already were; a window that is
 * one is still listed.
 */
import { afterAll, beforeAll, expect, it } from "vitest";
import { startApi, type ApiHarness } from "./harness.js";

let api: ApiHarness;
const lists: string[] = [];
beforeAll(async () => {
  api = await startApi();
  const app = await api.svix.application.create({ name: "windows" });
  const ep = await api.svix.endpoint.create(app.id, { url: "https://example.com/hook" });
  const msg = await api.svix.message.create(app.id, { eventType: "a.b", payload: {} });
  const base = `/api/v1/app/${app.id}`;
  lists.push(
    `${base}/msg`,
    `${base}/attempt/endpoint/${ep.id}`,
    `${base}/attempt/msg/${msg.id}`,
    `${base}/endpoint/${ep.id}/msg`,
  );
});
afterAll(async () => api.close());

const T1 = "2026-01-01T12:00:00Z";
const T2 = "2026-01-01T13:00:00Z";

it("refuses before not later than after on every list, naming before", async () => {
  for (const list of lists) {
    for (const [after, before] of [
      [T2, T1],
      [T1, T1],
    ]) {
      const res = await api.call("GET", `${list}?after=${after}&before=${before}`);
      expect(res.status, `${list} after ${after} before ${before}`).toBe(422);
      const body = (await res.json()) as { detail: { loc: unknown[] }[] };
      expect(body.detail.map((p) => p.loc.join("."))).toEqual(["query.before"]);
    }
  }
});

it("lists a window that is one", async () => {
  for (const list of lists) {
    const res = await api.call("GET", `${list}?after=${T1}&before=${T2}`);
    expect(res.status, list).toBe(200);
  }
});
