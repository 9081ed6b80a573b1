import { describe, expect, it } from "vitest";
import { ProgressBar, renderProgress, type JobProgress } from "../../src/cli/progress.js";
import { duration, parseTime, table } from "../../src/cli/format.js";

const job = (over: Partial<JobProgress> & { p?: Partial<JobProgress["progress"]> }) => ({
  state: "running",
  stage: "rest",
  startAt: "2026-01-01T10:00:00.000Z",
  reason: null,
  ...over,
  progress: {
    total: 20,
    succeeded: 0,
    failed: 0,
    skipped: 0,
    withdrawn: 0,
    outstanding: 0,
    ...over.p,
  },
});

describe("the replay-bulk progress bar", () => {
  it("fills in proportion to the records done, with the counts and the stage", () => {
    expect(renderProgress(job({ stage: "canary", p: { succeeded: 4, failed: 1 } }), 20)).toBe(
      "[=====---------------] 5/20  ok 4  failed 1  skipped 0  canary  running",
    );
    expect(renderProgress(job({ state: "completed", p: { succeeded: 19, skipped: 1 } }), 20)).toBe(
      "[====================] 20/20  ok 19  failed 0  skipped 1  completed",
    );
  });

  it("says when a job is scheduled or still selecting", () => {
    expect(renderProgress(job({ state: "scheduled", p: { total: null } }))).toBe(
      "scheduled to start at 2026-01-01T10:00:00.000Z",
    );
    expect(renderProgress(job({ p: { total: null } }))).toBe("running: selecting records…");
  });

  it("redraws in place on a terminal, and writes a line per change otherwise", () => {
    const tty: string[] = [];
    const bar = new ProgressBar({ write: (s: string) => tty.push(s), isTTY: true });
    bar.update(job({ p: { succeeded: 1 } }));
    bar.update(job({ p: { succeeded: 1 } }));
    bar.done();
    expect(tty).toHaveLength(2);
    expect(tty[0]).toMatch(/^\r\x1b\[2K\[/);
    expect(tty[1]).toBe("\n");

    const log: string[] = [];
    const plain = new ProgressBar({ write: (s: string) => log.push(s) });
    plain.update(job({ p: { succeeded: 1 } }));
    plain.update(job({ p: { succeeded: 1 } }));
    plain.update(job({ p: { succeeded: 2 } }));
    plain.done();
    expect(log).toHaveLength(2);
    expect(log.every((l) => l.endsWith("\n"))).toBe(true);
  });
});

describe("the CLI's formatting", () => {
  it("reads times as ISO-8601 or as a span back from now", () => {
    const now = Date.UTC(2026, 0, 2, 12);
    expect(parseTime("2h", now)).toBe("2026-01-02T10:00:00.000Z");
    expect(parseTime("1d", now)).toBe("2026-01-01T12:00:00.000Z");
    expect(parseTime("2026-01-02T08:30:00+01:00", now)).toBe("2026-01-02T07:30:00.000Z");
    expect(parseTime("yesterday", now)).toBeNull();
  });

  it("shows spans by their two largest units, and aligns table columns", () => {
    expect([duration(0), duration(45_000), duration(3_725_000), duration(90_061_000)]).toEqual([
      "0s",
      "45s",
      "1h 2m",
      "1d 1h",
    ]);
    expect(table(["A", "BB"], [["xyz", null]])).toBe("A    BB\nxyz  -");
  });
});

describe("the bar of a job followed while it runs", () => {
  const held = "waiting for results: 5 replays out at once; 5 wait for the open circuit of ep_1";

  it("writes the job's reason on a line of its own above the bar when it changes", () => {
    const log: string[] = [];
    const plain = new ProgressBar({ write: (s: string) => log.push(s) });
    plain.update(job({ p: { succeeded: 1 } }));
    plain.update(job({ reason: held, p: { succeeded: 1 } }));
    plain.update(job({ reason: held, p: { succeeded: 2 } }));
    plain.update(job({ state: "completed", reason: "20 selected", p: { succeeded: 20 } }));
    expect(log.map((l) => l.trimEnd().replace(/^\[[=-]+\] /, ""))).toEqual([
      "1/20  ok 1  failed 0  skipped 0  rest  running",
      held,
      "1/20  ok 1  failed 0  skipped 0  rest  running",
      "2/20  ok 2  failed 0  skipped 0  rest  running",
      "20/20  ok 20  failed 0  skipped 0  completed",
    ]);
  });

  it("on a terminal, clears the bar's line for the reason and draws the bar again below", () => {
    const tty: string[] = [];
    const bar = new ProgressBar({ write: (s: string) => tty.push(s), isTTY: true });
    bar.update(job({ p: { succeeded: 1 } }));
    bar.update(job({ reason: held, p: { succeeded: 1 } }));
    expect(tty.slice(1)).toEqual([
      `\r\x1b[2K${held}\n`,
      expect.stringMatching(/^\r\x1b\[2K\[=+-+\] 1\/20 /),
    ]);
  });
});
