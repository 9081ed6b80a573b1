/**
 * A time given on the command line as a date that does not exist — 2026-02-30, 2026-04-31 — is a
 * typo, refused naming the option. JavaScript's date parser rolls it over into the next month
 * (2026-02-30 is read as March 2nd), which for `replay-bulk --since` would select a window other
 * than the one the operator meant, without a word.
 */
import { afterAll, beforeAll, expect, it } from "vitest";
import { parseTime } from "../../src/cli/format.js";
import { runDlq, startFakeApi, type FakeApi } from "../support/fake-api.js";

const NOW = Date.parse("2026-05-10T12:00:00Z");

it.each(["2026-02-30", "2026-04-31T10:00:00Z", "2025-02-29 09:40", "2026-13-01", "2026-00-10"])(
  "%s is no time",
  (value) => {
    expect(parseTime(value, NOW)).toBeNull();
  },
);

it.each([
  ["2024-02-29", "2024-02-29T00:00:00.000Z"],
  ["2026-04-30T23:30:00Z", "2026-04-30T23:30:00.000Z"],
  ["2026-03-31T01:00:00+02:00", "2026-03-30T23:00:00.000Z"],
])("%s, a day that exists, is read as before", (value, iso) => {
  expect(parseTime(value, NOW)).toBe(iso);
});

let api: FakeApi;
beforeAll(async () => {
  api = await startFakeApi(202, { id: "job_1", state: "scheduled" });
});
afterAll(() => api.close());

it("replay-bulk --since 2026-04-31 is refused naming --since, without a request", async () => {
  const before = api.bodies.length;
  await expect(
    runDlq(
      api.url,
      ["replay-bulk", "--detach", "--endpoint", "ep_x", "--since", "2026-04-31"],
      NOW,
    ),
  ).rejects.toThrow(/--since/);
  expect(api.bodies).toHaveLength(before);
});
