import { describe, expect, it } from "vitest";
import { ceilingsBefore } from "../../bench/lib/scenario.js";

// A full run's order: drain, together, accept, lag, backlog, endpoints, isolation, storm. Only
// drain, together and endpoints are compared with the ceiling, and the run measures one after
// each of them; accept, lag and backlog take minutes between together and endpoints.
const run = [
  { name: "drain", needsCeiling: true },
  { name: "together", needsCeiling: true },
  { name: "accept", needsCeiling: false },
  { name: "lag", needsCeiling: false },
  { name: "backlog", needsCeiling: false },
  { name: "endpoints", needsCeiling: true },
  { name: "isolation", needsCeiling: false },
  { name: "storm", needsCeiling: false },
];

describe("the bench's ceilings before a scenario", () => {
  it("measure one before a compared scenario that other scenarios ran ahead of", () => {
    const before = ceilingsBefore(run, true);
    expect(run.filter((_, i) => before[i]).map((s) => s.name)).toEqual(["endpoints"]);
  });

  it("use the one measured at the start or after the scenario before when it is beside", () => {
    const [drain, together] = ceilingsBefore(run.slice(0, 2), true);
    expect([drain, together]).toEqual([false, false]);
  });

  it("measure one before the first scenario when the run measured none at its start", () => {
    expect(ceilingsBefore([run[5]!], false)).toEqual([true]);
  });
});
