/**
 * A Svix client user who sends a type back as read with its older single `featureFlag` set to
 * null (`update(name, { ...read, featureFlag: null })`) means to take the flag off, so that every
 * token sees the type. The body still carries the flags as read under `featureFlags`, which were
 * taken instead: the answer was 200 and the flag stayed. Likewise one set to another of the type's
 * flags kept the list, and the read showed the old `featureFlag` still.
 */
import { afterAll, beforeAll, expect, it } from "vitest";
import { startApi, type ApiHarness } from "./harness.js";

let api: ApiHarness;
beforeAll(async () => {
  api = await startApi();
});
afterAll(async () => api.close());

it("takes the single flag off by PUT and by PATCH", async () => {
  const types = api.svix.eventType;
  await types.create({ name: "invoice.paid", description: "Paid", featureFlag: "beta" });
  let read = await types.get("invoice.paid");
  expect([read.featureFlag, read.featureFlags]).toEqual(["beta", ["beta"]]);
  let after = await types.update("invoice.paid", { ...read, featureFlag: null });
  expect([after.featureFlag, after.featureFlags]).toEqual([null, null]);
  expect((await types.get("invoice.paid")).featureFlags).toBeNull();

  await types.patch("invoice.paid", { featureFlags: ["beta", "eu"] });
  read = await types.get("invoice.paid");
  after = await types.patch("invoice.paid", { ...read, featureFlag: null });
  expect([after.featureFlag, after.featureFlags]).toEqual(["eu", ["eu"]]);
});

it("puts another of the type's flags in the shown one's place", async () => {
  const types = api.svix.eventType;
  await types.patch("invoice.paid", { featureFlags: ["beta", "eu"] });
  const read = await types.get("invoice.paid");
  const after = await types.update("invoice.paid", { ...read, featureFlag: "eu" });
  expect([after.featureFlag, after.featureFlags]).toEqual(["eu", ["eu"]]);
});

it("keeps the list when the single flag is sent back as read", async () => {
  const types = api.svix.eventType;
  await types.patch("invoice.paid", { featureFlags: ["beta", "eu"] });
  const read = await types.get("invoice.paid");
  const after = await types.update("invoice.paid", { ...read, description: "Paid in full" });
  expect(after.featureFlags).toEqual(["beta", "eu"]);
});
