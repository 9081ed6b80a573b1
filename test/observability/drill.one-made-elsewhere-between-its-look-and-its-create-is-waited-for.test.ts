/**
 * Two drills at once on two workers: the first deletes the last run's endpoint and makes its own;
 * the second, looking between the two, finds no endpoint to wait for, and its create then met the
 * first's (uid `drill`): it failed with "an endpoint with this uid already exists" (seen in a
 * fleet test on a loaded machine). Now a drill whose create meets another's endpoint goes back and
 * waits for that one, as it would have had it looked a moment later. Acted out here in one
 * process: the other drill's endpoint is made just before this drill's create.
 */
import { afterAll, beforeAll, expect, it } from "vitest";
import type { Endpoint } from "../../src/domain/types.js";
import { startHookline, type TestHookline } from "../support/hookline.js";

interface DrillOut {
  passed: boolean;
  steps: { name: string; passed: boolean; detail: string }[];
}

let h: TestHookline;
beforeAll(async () => {
  h = await startHookline();
});
afterAll(async () => h.stop());

it("a drill whose endpoint another drill made first waits for that one and passes", async () => {
  const store = h.hookline.store;
  const create = store.createEndpoint.bind(store);
  let others = 0;
  store.createEndpoint = async (ep: Endpoint) => {
    if (ep.uid === "drill" && others === 0) {
      others++;
      await create({ ...ep, id: `${ep.id}x`, description: "another worker's drill" });
    }
    return create(ep);
  };
  try {
    const res = await h.api<DrillOut>("POST", "/api/v1/drill");
    expect(res.status).toBe(200);
    expect(res.body.steps.filter((s) => !s.passed).map((s) => s.detail)).toEqual([]);
    expect(res.body.passed).toBe(true);
  } finally {
    store.createEndpoint = create;
  }
  expect(others).toBe(1);
  const endpoints = await h.svix.endpoint.list("hookline-drill");
  expect(endpoints.data.map((e) => [e.uid, e.description])).toEqual([
    ["drill", "hookline failure drills"],
  ]);
});
