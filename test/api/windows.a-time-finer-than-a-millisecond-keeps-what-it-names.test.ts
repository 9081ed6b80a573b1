/**
 * hookline keeps times to the millisecond; a window's edge named finer (Python's `isoformat()`
 * sends microseconds: `…T10:00:00.123456+00:00`) was cut to the millisecond, which moved it: a
 * `before` or `until` of .123456 became .123 and left out what was made at .123, before it; a
 * `since` of .123456 became .123 and took in what was made at .123, before it. Each edge now keeps
 * exactly what the window named holds, on every list and window that takes a time: the message
 * and attempt lists, the dead-letter list, a bulk replay, recover, and an endpoint's stats. A
 * window the wrong way round is judged on the times as named: `before` .1231 with `after` .1239
 * (the same millisecond, swapped) is refused, and the other way round is a window, one that holds
 * no millisecond a record could have been made at, so its answer is empty.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FakeClock } from "../support/fake-clock.js";
import { deadLetterDue, startApi, type ApiHarness } from "./harness.js";

/** When the message, its attempt and its dead-letter record were made: .123 of a second. */
const T0 = Date.UTC(2026, 11, 6, 10, 0, 0, 123);
/** T0's second, to which each test adds its own fraction and zone. */
const SECOND = "2026-12-06T10:00:00";
const clock = new FakeClock(T0);

let api: ApiHarness;
let appId: string;
let endpointId: string;
let messageId: string;
let recordId: string;

beforeAll(async () => {
  api = await startApi({}, clock);
  appId = (await api.svix.application.create({ name: "Windows" })).id;
  endpointId = (await api.svix.endpoint.create(appId, { url: "https://example.com/hook" })).id;
  messageId = (await api.svix.message.create(appId, { eventType: "a.b", payload: {} })).id;
  // One failed attempt at T0 that ends the delivery in the dead-letter queue at T0.
  await deadLetterDue(api, T0);
  const records = await api.store.listDeadLetters({ appId, limit: 10 });
  recordId = records.data[0]!.id;
});
afterAll(async () => api.close());

/** `name=value&…` with each value percent-encoded, its `+` offset too. */
const query = (q: Record<string, string>) =>
  Object.entries(q)
    .map(([k, v]) => `${k}=${encodeURIComponent(v)}`)
    .join("&");

/** The ids a list answers, or its status when it refuses. */
async function listed(path: string, q: Record<string, string>): Promise<string[] | number> {
  const res = await api.call("GET", `${path}${path.includes("?") ? "&" : "?"}${query(q)}`);
  if (res.status !== 200) return res.status;
  const body = (await res.json()) as { data: { id: string }[] };
  return body.data.map((item) => item.id);
}

describe("the message and attempt lists' before and after", () => {
  // Each holds one thing made at T0: the message, or its attempt.
  const lists = () =>
    [
      `/api/v1/app/${appId}/msg`,
      `/api/v1/app/${appId}/endpoint/${endpointId}/msg`,
      `/api/v1/app/${appId}/attempt/endpoint/${endpointId}`,
      `/api/v1/app/${appId}/attempt/msg/${messageId}`,
    ].map((path) => ({ path }));
  /** Whether the list holds it, or the status when it refuses. */
  const made = async (path: string, q: Record<string, string>) => {
    const ids = await listed(path, q);
    return typeof ids === "number" ? ids : ids.length === 1;
  };

  it("keep what was made before a before named in microseconds, and leave out what was not", async () => {
    for (const { path } of lists()) {
      expect(await made(path, { before: `${SECOND}.123456+00:00` }), path).toBe(true);
      expect(await made(path, { before: `${SECOND}.1230001Z` }), path).toBe(true);
      expect(await made(path, { before: `${SECOND}.123000Z` }), path).toBe(false);
      expect(await made(path, { before: `${SECOND}.122999+00:00` }), path).toBe(false);
    }
  });

  it("keep what was made after an after named in microseconds, and leave out what was not", async () => {
    for (const { path } of lists()) {
      expect(await made(path, { after: `${SECOND}.122999+00:00` }), path).toBe(true);
      expect(await made(path, { after: `${SECOND}.123000Z` }), path).toBe(false);
      expect(await made(path, { after: `${SECOND}.1230001Z` }), path).toBe(false);
      expect(await made(path, { after: `${SECOND}.123456+00:00` }), path).toBe(false);
      // At an offset, the digits past the millisecond are the same.
      expect(await made(path, { after: "2026-12-06T11:00:00.122999+01:00" }), path).toBe(true);
    }
  });

  it("refuse a before not later than after as named, and answer a window within a millisecond", async () => {
    for (const { path } of lists()) {
      for (const [after, before] of [
        [".1239", ".1231"],
        [".123456", ".1234560"],
      ]) {
        const q = { after: `${SECOND}${after}Z`, before: `${SECOND}${before}Z` };
        expect(await made(path, q), `${path} ${after} ${before}`).toBe(422);
      }
      const within = { after: `${SECOND}.1231Z`, before: `${SECOND}.1239Z` };
      expect(await made(path, within), path).toBe(false);
      const around = { after: `${SECOND}.1229999Z`, before: `${SECOND}.1230001Z` };
      expect(await made(path, around), path).toBe(true);
    }
  });

  it("are as they were for the Svix client's Dates, which hold milliseconds", async () => {
    const list = (o: { before?: Date; after?: Date }) =>
      api.svix.message.list(appId, o).then((p) => p.data.map((m) => m.id));
    expect(await list({ before: new Date(T0 + 1) })).toEqual([messageId]);
    expect(await list({ before: new Date(T0) })).toEqual([]);
    expect(await list({ after: new Date(T0 - 1) })).toEqual([messageId]);
    expect(await list({ after: new Date(T0) })).toEqual([]);
  });
});

describe("the dead-letter list's since and until", () => {
  const dlq = () => `/api/v1/dlq?app_id=${appId}`;

  it("keep a record made before an until named in microseconds, and leave out what was not", async () => {
    expect(await listed(dlq(), { until: `${SECOND}.123456+00:00` })).toEqual([recordId]);
    expect(await listed(dlq(), { until: `${SECOND}.123000Z` })).toEqual([]);
  });

  it("leave out a record made before a since named in microseconds, and keep one at or after it", async () => {
    expect(await listed(dlq(), { since: `${SECOND}.123456+00:00` })).toEqual([]);
    expect(await listed(dlq(), { since: `${SECOND}.123000Z` })).toEqual([recordId]);
    expect(await listed(dlq(), { since: `${SECOND}.122999Z` })).toEqual([recordId]);
  });

  it("refuse an until not later than since as named, and answer a window within a millisecond", async () => {
    const swapped = { since: `${SECOND}.1239Z`, until: `${SECOND}.1231Z` };
    expect(await listed(dlq(), swapped)).toBe(422);
    expect(await listed(dlq(), { since: `${SECOND}.1231Z`, until: `${SECOND}.1239Z` })).toEqual([]);
  });
});

describe("a bulk replay's and recover's since and until", () => {
  interface Job {
    id: string;
    selection: { since?: string; until?: string };
  }
  /** Starts a job with `body`, answers its selection's window as shown, and cancels it. */
  const selected = async (path: string, body: Record<string, unknown>) => {
    const res = await api.call("POST", path, body);
    if (res.status !== 202) return res.status;
    const { id } = (await res.json()) as { id: string };
    const job = await api.call("GET", `/api/v1/dlq/replay/${id}`);
    const { since, until } = ((await job.json()) as Job).selection;
    expect((await api.call("POST", `/api/v1/dlq/replay/${id}/cancel`)).status).toBe(200);
    return { since, until };
  };
  const bulk = (body: Record<string, unknown>) =>
    selected("/api/v1/dlq/replay", { endpointId, ...body });
  const recover = (body: Record<string, unknown>) =>
    selected(`/api/v1/app/${appId}/endpoint/${endpointId}/recover`, body);

  it("select from the first millisecond at or after since, to before the first at or after until", async () => {
    for (const start of [bulk, recover]) {
      // The record made at .123 is before .123456: a window from it starts at .124; one to it ends
      // at .124, so the record is in it.
      expect(
        await start({ since: `${SECOND}.123456+00:00`, until: `${SECOND}.124456+00:00` }),
      ).toEqual({ since: `${SECOND}.124Z`, until: `${SECOND}.125Z` });
      expect(await start({ since: `${SECOND}.122Z`, until: `${SECOND}.123Z` })).toEqual({
        since: `${SECOND}.122Z`,
        until: `${SECOND}.123Z`,
      });
    }
  });

  it("refuse an until not later than since as named, and take a window within a millisecond", async () => {
    for (const start of [bulk, recover]) {
      expect(await start({ since: `${SECOND}.1239Z`, until: `${SECOND}.1231Z` })).toBe(422);
      expect(await start({ since: `${SECOND}.1231Z`, until: `${SECOND}.1239Z` })).toEqual({
        since: `${SECOND}.124Z`,
        until: `${SECOND}.124Z`,
      });
    }
  });
});

describe("an endpoint's stats' since and until", () => {
  const failed = async (q: Record<string, string>) => {
    const res = await api.call(
      "GET",
      `/api/v1/app/${appId}/endpoint/${endpointId}/stats?${query(q)}`,
    );
    if (res.status !== 200) return res.status;
    return ((await res.json()) as { fail: number }).fail;
  };

  it("count the message made before an until named in microseconds, and not after a since", async () => {
    const day = { since: "2026-12-06T00:00:00Z" };
    expect(await failed({ ...day, until: `${SECOND}.123456+00:00` })).toBe(1);
    expect(await failed({ ...day, until: `${SECOND}.123Z` })).toBe(0);
    expect(await failed({ since: `${SECOND}.123456+00:00` })).toBe(0);
    expect(await failed({ since: `${SECOND}.123Z` })).toBe(1);
    // Without since, the day before until: until's edge keeps the message as it would alone.
    expect(await failed({ until: `${SECOND}.123456+00:00` })).toBe(1);
  });

  it("refuse an until not later than since as named, and answer a window within a millisecond", async () => {
    expect(await failed({ since: `${SECOND}.1239Z`, until: `${SECOND}.1231Z` })).toBe(422);
    expect(await failed({ since: `${SECOND}.1231Z`, until: `${SECOND}.1239Z` })).toBe(0);
    expect(await failed({ since: `${SECOND}.1229Z`, until: `${SECOND}.1231Z` })).toBe(1);
  });
});
