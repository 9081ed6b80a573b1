/**
 * The bulk replay's progress line is about 85 characters, more with large counts. On an 80-column
 * terminal it wrapped, and each redraw (`\r`, clear the line) cleared only its last row: every
 * update left another half line behind. On a terminal the line now fits: the bar narrows first,
 * then the line is cut.
 */
import { expect, it } from "vitest";
import { ProgressBar, type JobProgress } from "../../src/cli/progress.js";

const job: JobProgress = {
  state: "running",
  stage: "rest",
  startAt: "2026-01-01T10:00:00.000Z",
  reason: null,
  progress: {
    total: 41_200,
    succeeded: 13_000,
    failed: 12,
    skipped: 3,
    withdrawn: 0,
    outstanding: 5,
  },
};

/** What a terminal of `columns` columns is sent for one update, without the redraw's escapes. */
function drawn(columns: number): string {
  const writes: string[] = [];
  const bar = new ProgressBar({ write: (s: string) => writes.push(s), isTTY: true, columns });
  bar.update(job);
  expect(writes).toHaveLength(1);
  expect(writes[0]).toMatch(/^\r\x1b\[2K/);
  return writes[0]!.replace(/^\r\x1b\[2K/, "");
}

it("narrows the bar to fit 80 columns, keeping every count and the state", () => {
  const line = drawn(80);
  expect(line.length).toBeLessThan(80);
  expect(line).toMatch(
    /^\[=+-+\] 13015\/41200 {2}ok 13000 {2}failed 12 {2}skipped 3 {2}rest {2}running$/,
  );
});

it("cuts the line where even a short bar does not fit", () => {
  expect(drawn(40)).toHaveLength(39);
});

it("leaves the line whole where it fits, and in a log, which does not redraw", () => {
  expect(drawn(200)).toMatch(/^\[={9}-{21}\] /);
  const writes: string[] = [];
  new ProgressBar({ write: (s: string) => writes.push(s), columns: 40 }).update(job);
  expect(writes[0]).toMatch(/^\[={9}-{21}\] .* running\n$/);
});
