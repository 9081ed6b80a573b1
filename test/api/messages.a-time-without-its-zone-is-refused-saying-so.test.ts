/**
 * A time without its zone (`2026-01-01T12:00:00`, a local time in ISO-8601, naming no instant) is
 * refused, as Svix does; the 422 said "must be an ISO-8601 date-time", which it is, leaving the
 * caller to guess. It now says a zone (Z or an offset) and seconds are wanted, with examples,
 * for a message's deliverAt, a list's before/after and a bulk replay's since/until alike.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startApi, type ApiHarness } from "./harness.js";

let api: ApiHarness;
let appId: string;
beforeAll(async () => {
  api = await startApi();
  appId = (await api.svix.application.create({ name: "Zones" })).id;
});
afterAll(async () => api.close());

type Refusal = { detail: { loc: string[]; msg: string }[] };

async function refusal(res: Response): Promise<{ loc: string; msg: string }> {
  expect(res.status).toBe(422);
  const [first] = ((await res.json()) as Refusal).detail;
  return { loc: first!.loc.join("."), msg: first!.msg };
}

describe("a time without its zone", () => {
  it("as deliverAt is refused saying to add Z or an offset", async () => {
    const res = await api.call("POST", `/api/v1/app/${appId}/msg`, {
      eventType: "zone.less",
      payload: {},
      deliverAt: "2026-01-01T12:00:00",
    });
    const r = await refusal(res);
    expect(r.loc).toBe("body.deliverAt");
    expect(r.msg).toMatch(/Z or an offset/);
  });

  it("as a list's before is refused the same way", async () => {
    const r = await refusal(
      await api.call("GET", `/api/v1/app/${appId}/msg?before=2026-01-01T12:00`),
    );
    expect(r.loc).toBe("query.before");
    expect(r.msg).toMatch(/Z or an offset/);
  });

  it("as a bulk replay's since is refused the same way", async () => {
    const res = await api.call("POST", "/api/v1/dlq/replay", {
      appId,
      since: "2026-01-01T12:00:00",
      ratePerSecond: 1,
    });
    const r = await refusal(res);
    expect(r.loc).toBe("body.since");
    expect(r.msg).toMatch(/Z or an offset/);
  });
});
