/**
 * `operationalWebhookEndpoint.list` listed the oldest endpoint first, where `endpoint.list` lists
 * the newest first unless `order=ascending`, as Svix does: the same client, the same kind of
 * record, read in opposite orders. Operational webhook endpoints are now listed newest first too,
 * oldest first with `order=ascending`, and paged on in that order.
 */
import { afterAll, beforeAll, expect, it } from "vitest";
import { Ordering } from "svix";
import { startHookline, type TestHookline } from "../support/hookline.js";

let h: TestHookline;
beforeAll(async () => {
  h = await startHookline();
});
afterAll(async () => h.stop());

it("lists operational webhook endpoints newest first, as an application's endpoints, and oldest first when asked", async () => {
  const made: string[] = [];
  for (const n of [1, 2, 3]) {
    made.push(
      (await h.svix.operationalWebhookEndpoint.create({ url: `http://127.0.0.1:9/ops${n}` })).id,
    );
  }
  const newestFirst = [...made].reverse();

  const all = await h.svix.operationalWebhookEndpoint.list();
  expect(all.data.map((e) => e.id)).toEqual(newestFirst);

  // Paged on from the iterator, in the same order.
  const first = await h.svix.operationalWebhookEndpoint.list({ limit: 2 });
  expect(first.data.map((e) => e.id)).toEqual(newestFirst.slice(0, 2));
  expect(first.done).toBe(false);
  const rest = await h.svix.operationalWebhookEndpoint.list({ limit: 2, iterator: first.iterator });
  expect(rest.data.map((e) => e.id)).toEqual(newestFirst.slice(2));
  expect(rest.done).toBe(true);

  const oldestFirst = await h.svix.operationalWebhookEndpoint.list({ order: Ordering.Ascending });
  expect(oldestFirst.data.map((e) => e.id)).toEqual(made);

  // The same as an application's endpoints, read with the same client.
  const app = await h.svix.application.create({ name: "Acme" });
  const eps: string[] = [];
  for (const n of [1, 2]) {
    eps.push((await h.svix.endpoint.create(app.id, { url: `http://127.0.0.1:9/ep${n}` })).id);
  }
  expect((await h.svix.endpoint.list(app.id)).data.map((e) => e.id)).toEqual([...eps].reverse());
});
