/**
 * A time given on the command line with a clock time but no zone (`--since 2026-03-02T09:40`)
 * was read in the time zone of the machine running the CLI, while a date alone was read in UTC
 * and every time hookline shows is UTC: the same words selected another window on an operator's
 * laptop than in a UTC container, hours apart, without a word. It is refused, naming the option
 * and saying to add `Z` or an offset; a date alone is still the start of that day in UTC.
 */
import { afterAll, beforeAll, expect, it } from "vitest";
import { parseTime } from "../../src/cli/format.js";
import { runDlq, startFakeApi, type FakeApi } from "../support/fake-api.js";

const NOW = Date.parse("2026-03-02T12:00:00Z");
const tz = process.env.TZ;
let api: FakeApi;
beforeAll(async () => {
  // A machine whose local time is not UTC, where the difference shows.
  process.env.TZ = "America/New_York";
  api = await startFakeApi(202, { id: "job_1", state: "scheduled" });
});
afterAll(() => {
  if (tz === undefined) delete process.env.TZ;
  else process.env.TZ = tz;
  api.close();
});

it.each(["2026-03-02T09:40", "2026-03-02T09:40:00", "2026-03-02 09:40", "2026-03-02T09:40:00.5"])(
  "%s, a clock time without a zone, is no time",
  (value) => {
    expect(parseTime(value, NOW)).toBeNull();
  },
);

it.each([
  ["2026-03-02", "2026-03-02T00:00:00.000Z"],
  ["2026-03-02T09:40Z", "2026-03-02T09:40:00.000Z"],
  ["2026-03-02T09:40:00z", "2026-03-02T09:40:00.000Z"],
  ["2026-03-02T09:40:00-05:00", "2026-03-02T14:40:00.000Z"],
  ["2026-03-02T09:40:00+0100", "2026-03-02T08:40:00.000Z"],
])("%s is read in UTC or at its offset, wherever the CLI runs", (value, iso) => {
  expect(parseTime(value, NOW)).toBe(iso);
});

it("replay-bulk --since 2026-03-02T09:40 is refused naming --since and the zone, without a request", async () => {
  const before = api.bodies.length;
  await expect(
    runDlq(
      api.url,
      ["replay-bulk", "--detach", "--endpoint", "ep_x", "--since", "2026-03-02T09:40"],
      NOW,
    ),
  ).rejects.toThrow(/--since: .*Z or an offset/);
  expect(api.bodies).toHaveLength(before);
});
