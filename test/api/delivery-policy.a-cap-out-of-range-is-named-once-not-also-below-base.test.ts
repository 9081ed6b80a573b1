/**
 * An exponential retry ladder whose `cap` is out of range (above 7 days, or negative) is refused
 * naming `cap` for that alone. It was also said to be "at least base" when it was far above
 * `base`: the comparison took the refused cap as 0. A cap that is below a valid base is still
 * refused for that.
 */
import { afterAll, beforeAll, expect, it } from "vitest";
import { startApi, type ApiHarness } from "./harness.js";

let api: ApiHarness;
beforeAll(async () => {
  api = await startApi();
  expect((await api.call("POST", "/api/v1/app", { name: "ladder", uid: "ladder" })).status).toBe(
    201,
  );
});
afterAll(async () => api.close());

interface Problem {
  loc: (string | number)[];
  msg: string;
}

const problemsFor = async (retry: Record<string, unknown>): Promise<Problem[]> => {
  const res = await api.call("PUT", "/api/v1/app/ladder/delivery-policy", { retry });
  expect(res.status).toBe(422);
  return ((await res.json()) as { detail: Problem[] }).detail;
};

it.each([1e9, -1])("names a cap of %s as out of range, and only that", async (cap) => {
  const detail = await problemsFor({ base: 1, factor: 2, cap, attempts: 5, window: 100 });
  expect(detail).toEqual([
    expect.objectContaining({
      loc: ["body", "retry", "cap"],
      msg: "must be a number of seconds from 0 to 604800 (7 days)",
    }),
  ]);
});

it("still refuses a cap below a valid base", async () => {
  const detail = await problemsFor({ base: 60, factor: 2, cap: 10, attempts: 5, window: 1000 });
  expect(detail).toEqual([
    expect.objectContaining({ loc: ["body", "retry", "cap"], msg: "must be at least base" }),
  ]);
});
