/**
 * A message's `deliverAt` and a bulk replay's `startAt` say "not before". hookline keeps times to
 * the millisecond, and a client may send them finer (Python's `isoformat()` writes microseconds:
 * `…T10:00:00.123456+00:00`); they were cut to the millisecond, so `.123456` became `.123` and
 * the message went, or the job started, up to a millisecond before the time asked for. A time with
 * digits past the millisecond is now taken as the next whole millisecond; one without is as it
 * was. The Svix client's Dates hold milliseconds, so these are sent over raw HTTP.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FakeClock } from "../support/fake-clock.js";
import { startApi, type ApiHarness } from "./harness.js";

/** The second asked for, an hour after the API's clock, to which each case adds its fraction. */
const SECOND = "2026-12-07T10:00:00";
const AT = Date.UTC(2026, 11, 7, 10, 0, 0);
const clock = new FakeClock(AT - 3_600_000);

let api: ApiHarness;
let appId: string;
let endpointId: string;
beforeAll(async () => {
  api = await startApi({}, clock);
  appId = (await api.svix.application.create({ name: "Later" })).id;
  endpointId = (await api.svix.endpoint.create(appId, { url: "https://example.com/hook" })).id;
});
afterAll(async () => api.close());

/** The time named, and the whole millisecond (past AT) it must not be sent or started before. */
const cases: [named: string, notBefore: number][] = [
  [`${SECOND}.123456Z`, 124],
  [`${SECOND}.123456+00:00`, 124],
  [`${SECOND}.1230001Z`, 124],
  [`${SECOND}.999999Z`, 1000],
  [`${SECOND}.123000Z`, 123],
  [`${SECOND}.123Z`, 123],
  [`${SECOND}.12Z`, 120],
  [`${SECOND}Z`, 0],
  // At an offset the digits past the millisecond are the same.
  ["2026-12-07T11:00:00.123456+01:00", 124],
];

describe("a message's deliverAt finer than a millisecond", () => {
  it("is delivered from the next whole millisecond, never before the time asked for", async () => {
    for (const [deliverAt, ms] of cases) {
      const res = await api.call("POST", `/api/v1/app/${appId}/msg`, {
        eventType: "invoice.due",
        payload: {},
        deliverAt,
      });
      expect(res.status, deliverAt).toBe(202);
      const created = (await res.json()) as { id: string; deliverAt: string };
      expect(created.deliverAt, deliverAt).toBe(new Date(AT + ms).toISOString());
      const [delivery] = await api.store.listDeliveries(created.id);
      expect(delivery?.nextAttemptAt, deliverAt).toBe(AT + ms);
    }
  });
});

describe("a bulk replay's startAt finer than a millisecond", () => {
  it("starts the job from the next whole millisecond, never before the time asked for", async () => {
    // The replay jobs' clock is the machine's: a start far ahead of it is kept as asked.
    const year = "2099";
    for (const [named, ms] of cases) {
      const startAt = `${year}${named.slice(4)}`;
      const res = await api.call("POST", "/api/v1/dlq/replay", { endpointId, startAt });
      expect(res.status, startAt).toBe(202);
      const job = (await res.json()) as { id: string; startAt: string };
      const second = Date.UTC(2099, 11, 7, 10, 0, 0);
      expect(job.startAt, startAt).toBe(new Date(second + ms).toISOString());
      expect((await api.call("POST", `/api/v1/dlq/replay/${job.id}/cancel`)).status).toBe(200);
    }
  });
});
