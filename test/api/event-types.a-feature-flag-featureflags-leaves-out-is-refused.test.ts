/**
 * `featureFlag` is the older name of a single flag and `featureFlags` the newer list, and the list
 * wins. A body with a `featureFlag` the list leaves out kept the list and dropped that flag without
 * a word: the event type was then seen by links it was meant to be hidden from, or the other way
 * round. It is refused (422 naming body.featureFlag) and nothing changes; a flag the list holds
 * is taken, as a type read and sent back carries its first flag under both names, and so is one
 * sent with the type's own list, as read (see
 * event-types.svix-client-read-change-send-back-round-trips).
 */
import { afterAll, beforeAll, expect, it } from "vitest";
import { startApi, type ApiHarness } from "./harness.js";

let api: ApiHarness;
beforeAll(async () => {
  api = await startApi();
  await api.svix.eventType.create({ name: "invoice.paid", description: "d", featureFlags: ["a"] });
});
afterAll(async () => api.close());

const refusedOnFeatureFlag = async (res: Response) => {
  expect(res.status).toBe(422);
  const body = (await res.json()) as { detail: { loc: unknown[]; msg: string }[] };
  expect(body.detail.map((p) => p.loc.join("."))).toEqual(["body.featureFlag"]);
  expect(body.detail[0]!.msg).toContain('does not hold "beta"');
};

it("is refused on every write, and nothing changes", async () => {
  // A change whose list is not the stored one: the type's flags as read (["a"]) with another
  // featureFlag is a read sent back with its featureFlag changed, and is taken.
  const both = { featureFlag: "beta", featureFlags: ["a", "c"] };
  const path = "/api/v1/event-type/invoice.paid";
  for (const [method, url, body] of [
    [
      "POST",
      "/api/v1/event-type",
      { name: "invoice.new", description: "d", featureFlag: "beta", featureFlags: ["a"] },
    ],
    ["PUT", path, { description: "changed", ...both }],
    ["PATCH", path, { description: "changed", ...both }],
  ] as const) {
    await refusedOnFeatureFlag(await api.call(method, url, body));
  }
  expect((await api.call("GET", "/api/v1/event-type/invoice.new")).status).toBe(404);
  const kept = await api.svix.eventType.get("invoice.paid");
  expect(kept).toMatchObject({ description: "d", featureFlags: ["a"] });
});

it("takes a featureFlag the list holds, and a type sent back as it was read", async () => {
  const res = await api.call("PATCH", "/api/v1/event-type/invoice.paid", {
    featureFlag: "b",
    featureFlags: ["a", "b"],
  });
  expect(res.status).toBe(200);
  const read = await api.svix.eventType.get("invoice.paid");
  expect(read).toMatchObject({ featureFlag: "a", featureFlags: ["a", "b"] });
  const again = await api.svix.eventType.update("invoice.paid", read);
  expect(again.featureFlags).toEqual(["a", "b"]);
});
