/**
 * An event type read with a Svix client carries its first flag twice, as `featureFlag` and in
 * `featureFlags`; a client that changes the list and sends the type back (`{ ...read,
 * featureFlags }`) still sends that first flag as `featureFlag`. A `featureFlag` the list left
 * out was refused whatever it was, so taking the first flag off a type, or every flag, that way
 * was answered 422. The flag the type shows as its `featureFlag` is what a read gave back, and is
 * taken as such; any other the list leaves out is still refused.
 */
import { afterAll, beforeAll, expect, it } from "vitest";
import { startApi, type ApiHarness } from "./harness.js";

let api: ApiHarness;
beforeAll(async () => {
  api = await startApi();
});
afterAll(async () => api.close());

it("takes a type sent back by PUT with its first flag taken off the list", async () => {
  await api.svix.eventType.create({
    name: "invoice.paid",
    description: "d",
    featureFlags: ["a", "b"],
  });
  const read = await api.svix.eventType.get("invoice.paid");
  expect(read.featureFlag).toBe("a");
  const sent = await api.svix.eventType.update("invoice.paid", { ...read, featureFlags: ["b"] });
  expect(sent).toMatchObject({ featureFlag: "b", featureFlags: ["b"] });
  expect(await api.svix.eventType.get("invoice.paid")).toMatchObject({ featureFlags: ["b"] });
});

it("takes a type sent back by PATCH with every flag taken off", async () => {
  await api.svix.eventType.create({ name: "invoice.sent", description: "d", featureFlags: ["a"] });
  const read = await api.svix.eventType.get("invoice.sent");
  const sent = await api.svix.eventType.patch("invoice.sent", { ...read, featureFlags: null });
  expect(sent).toMatchObject({ featureFlag: null, featureFlags: null });
});

it("still refuses a flag the type does not show that the list leaves out", async () => {
  await api.svix.eventType.create({ name: "invoice.due", description: "d", featureFlags: ["a"] });
  for (const method of ["PUT", "PATCH"] as const) {
    const res = await api.call(method, "/api/v1/event-type/invoice.due", {
      description: "changed",
      featureFlag: "b",
      featureFlags: ["c"],
    });
    expect(res.status).toBe(422);
    const body = (await res.json()) as { detail: { loc: unknown[] }[] };
    expect(body.detail.map((p) => p.loc.join("."))).toEqual(["body.featureFlag"]);
  }
  expect(await api.svix.eventType.get("invoice.due")).toMatchObject({ description: "d" });
});
