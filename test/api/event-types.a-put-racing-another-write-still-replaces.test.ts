/**
 * PUT /api/v1/event-type/{name} replaces the type, creating it if it does not exist. Another
 * write may land between its read and its write: a delete (the type it read is gone), or another
 * PUT creating the same name. Either way the PUT still leaves its version stored and says so
 * (201 created, 200 replaced), never a 200 for nothing stored or an undocumented 409.
 */
import { afterAll, beforeAll, expect, it, vi } from "vitest";
import { startApi, type ApiHarness } from "./harness.js";

let api: ApiHarness;
beforeAll(async () => {
  api = await startApi();
});
afterAll(async () => api.close());

const put = (name: string, description: string) =>
  api.call("PUT", `/api/v1/event-type/${name}`, { description });

it("a type deleted after the PUT read it is created again (201)", async () => {
  await api.svix.eventType.create({ name: "order.gone", description: "first" });
  const stale = await api.store.findEventType("order.gone");
  await api.svix.eventType.delete("order.gone", { expunge: true });
  vi.spyOn(api.store, "findEventType").mockResolvedValueOnce(stale);
  const res = await put("order.gone", "second");
  expect(res.status).toBe(201);
  expect(await api.store.findEventType("order.gone")).toMatchObject({ description: "second" });
});

it("a type another call created after the PUT read it is replaced (200)", async () => {
  await api.svix.eventType.create({ name: "order.raced", description: "other call" });
  vi.spyOn(api.store, "findEventType").mockResolvedValueOnce(null);
  const res = await put("order.raced", "this call");
  expect(res.status).toBe(200);
  expect(await res.json()).toMatchObject({ name: "order.raced", description: "this call" });
  expect(await api.store.findEventType("order.raced")).toMatchObject({ description: "this call" });
});
