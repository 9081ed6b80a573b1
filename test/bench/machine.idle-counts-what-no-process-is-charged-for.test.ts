import { describe, expect, it } from "vitest";
import { idleBetween, parseCpuLine } from "../../bench/lib/machine.js";

describe("the bench's reading of the whole machine's idle time", () => {
  it("reads idle (with I/O wait), software interrupts and the total from /proc/stat's cpu line", () => {
    // user nice system idle iowait irq softirq steal guest guest_nice
    const line = "cpu  5000 10 1200 3000 40 0 300 0 0 0";
    // Guest time is already inside user time: only the first eight fields make the total.
    expect(parseCpuLine(line)).toEqual({ idle: 3040, softirq: 300, total: 9550 });
  });

  it("gives the shares between two readings, softirq apart from any process's CPU", () => {
    const before = { idle: 1000, softirq: 100, total: 10_000 };
    const after = { idle: 1180, softirq: 180, total: 11_000 };
    expect(idleBetween(before, after)).toBe("the machine 18 % idle, 8 % in software interrupts");
  });

  it("says so when no time passed between the readings, rather than dividing by nothing", () => {
    const at = { idle: 1, softirq: 1, total: 10 };
    expect(idleBetween(at, at)).toMatch(/not measured/);
  });
});
