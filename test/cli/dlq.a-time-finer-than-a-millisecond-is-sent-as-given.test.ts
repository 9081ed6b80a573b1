/**
 * `hookline dlq list` and `replay-bulk` read `--since`/`--until` into a Date and sent it as ISO-8601
 * in UTC, which a Date holds to the millisecond: `--until 2026-12-06T10:00:00.123456Z` went as
 * .123Z and left out the record dead-lettered at .123, before the time given; `--since .123456`
 * took it in. The digits past the millisecond are now sent as given (at any offset they are the
 * same), and hookline rounds each edge the way that keeps what the window names; a window within
 * one millisecond is taken as the API takes it, and one the wrong way round refused.
 */
import { afterAll, beforeAll, expect, it } from "vitest";
import { parseTime } from "../../src/cli/format.js";
import { deadLetterDue, startApi, type ApiHarness } from "../api/harness.js";
import { FakeClock } from "../support/fake-clock.js";
import { runDlq, startFakeApi, type FakeApi } from "../support/fake-api.js";

/** When the record was dead-lettered: .123 of a second. */
const T0 = Date.UTC(2026, 11, 6, 10, 0, 0, 123);
const SECOND = "2026-12-06T10:00:00";
const clock = new FakeClock(T0);

let api: ApiHarness;
let fake: FakeApi;
let recordId: string;
beforeAll(async () => {
  api = await startApi({}, clock);
  const app = await api.svix.application.create({ name: "Finer" });
  await api.svix.endpoint.create(app.id, { url: "https://example.com/hook" });
  await api.svix.message.create(app.id, { eventType: "a.b", payload: {} });
  await deadLetterDue(api, T0);
  recordId = (await api.store.listDeadLetters({ limit: 1 })).data[0]!.id;
  fake = await startFakeApi(202, { id: "job_1", state: "scheduled" });
});
afterAll(async () => {
  await api.close();
  await fake.close();
});

it.each([
  [`${SECOND}.123456Z`, `${SECOND}.123456Z`],
  [`${SECOND}.123456+00:00`, `${SECOND}.123456Z`],
  ["2026-12-06T11:00:00.1234567+01:00", `${SECOND}.1234567Z`],
  [`${SECOND}.123000Z`, `${SECOND}.123Z`],
  [`${SECOND}.1230001Z`, `${SECOND}.1230001Z`],
  [`${SECOND}.1Z`, `${SECOND}.100Z`],
])("%s is sent as %s", (value, sent) => {
  expect(parseTime(value, T0)).toBe(sent);
});

it("lists the record dead-lettered before an --until given in microseconds, and not after a --since", async () => {
  const listed = async (...args: string[]) => {
    const out = await runDlq(api.url, ["list", "--json", ...args], T0, api.token);
    return (JSON.parse(out) as { data: { id: string }[] }).data.map((r) => r.id);
  };
  expect(await listed("--until", `${SECOND}.123456Z`)).toEqual([recordId]);
  expect(await listed("--until", `${SECOND}.123Z`)).toEqual([]);
  expect(await listed("--since", `${SECOND}.123456+00:00`)).toEqual([]);
  expect(await listed("--since", `${SECOND}.123Z`)).toEqual([recordId]);
  // A window within one millisecond is the right way round: taken, and it holds no record. The
  // same two times swapped are refused, naming the option.
  expect(await listed("--since", `${SECOND}.1231Z`, "--until", `${SECOND}.1239Z`)).toEqual([]);
  await expect(listed("--since", `${SECOND}.1239Z`, "--until", `${SECOND}.1231Z`)).rejects.toThrow(
    /--until.*later than since/,
  );
});

it("replay-bulk sends --since and --until with their digits past the millisecond", async () => {
  await runDlq(
    fake.url,
    [
      "replay-bulk",
      "--detach",
      "--endpoint",
      "ep_x",
      "--since",
      `${SECOND}.123456+00:00`,
      "--until",
      `${SECOND}.654321Z`,
    ],
    T0,
  );
  expect(fake.bodies.at(-1)).toMatchObject({
    since: `${SECOND}.123456Z`,
    until: `${SECOND}.654321Z`,
  });
});
