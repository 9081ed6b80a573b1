import { describe, expect, it } from "vitest";
import {
  DATABASE_COMMAND,
  isBenchWork,
  parseStat,
  type ProcessSample,
} from "../../bench/lib/process-table.js";

// A made-up process table: the bench (100) with a hookline child (101) and its grandchild (102);
// PostgreSQL's postmaster (50) and a backend (51) under init; an editor (60) under init.
const BENCH = 100;
const table = new Map<number, ProcessSample>([
  [1, { ppid: 0, ticks: 0, command: "init" }],
  [50, { ppid: 1, ticks: 0, command: DATABASE_COMMAND }],
  [51, { ppid: 50, ticks: 0, command: DATABASE_COMMAND }],
  [60, { ppid: 1, ticks: 0, command: "vim" }],
  [BENCH, { ppid: 1, ticks: 0, command: "node" }],
  [101, { ppid: BENCH, ticks: 0, command: "node" }],
  [102, { ppid: 101, ticks: 0, command: "node" }],
]);

describe("the bench's count of other work on the machine", () => {
  it("counts the bench and its descendants as its own, and everything else as other work", () => {
    for (const pid of [BENCH, 101, 102]) expect(isBenchWork(pid, table, BENCH, false)).toBe(true);
    for (const pid of [50, 51, 60]) expect(isBenchWork(pid, table, BENCH, false)).toBe(false);
  });

  it("counts the PostgreSQL server as the bench's own only while a scenario drives it", () => {
    expect(isBenchWork(51, table, BENCH, true)).toBe(true);
    expect(isBenchWork(50, table, BENCH, true)).toBe(true);
    // Other work stays other work meanwhile.
    expect(isBenchWork(60, table, BENCH, true)).toBe(false);
  });

  it("reads a process's parent, CPU ticks and command from its stat line", () => {
    // The command may hold spaces and parentheses; the fields after it are counted from the last.
    const line = "4242 (a (b) c) S 4200 4242 4242 0 -1 4194304 10 0 0 0 7 5 0 0 20 0 1 0";
    expect(parseStat(line)).toEqual({ ppid: 4200, ticks: 12, command: "a (b) c" });
  });
});
