/**
 * Every change to an endpoint (an application, an event type) reads it, changes it and writes it whole. Two made at once used to
 * let the later write undo the other unseen (a rotation answered 204 and its secret lost, a URL
 * change reverted). Now a write made from a read that another write overtook is made again from
 * the endpoint as it is; one that keeps losing the race is refused (409) and writes nothing.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { ApiException } from "svix";
import type { Endpoint } from "../../src/domain/types.js";
import { generateSecret } from "../../src/signing/secret.js";
import { anotherProcessOver, startApi, type ApiHarness } from "./harness.js";

let api: ApiHarness;
/** Another process over the same rows: one API's own changes to a row take turns instead. */
let other: Awaited<ReturnType<typeof anotherProcessOver>>;
let appId: string;
beforeAll(async () => {
  api = await startApi();
  other = await anotherProcessOver(api);
  appId = (await api.svix.application.create({ name: "At once" })).id;
});
afterAll(async () => {
  await other.close();
  await api.close();
});

type CheckedWrite = "updateEndpoint" | "updateApplication" | "updateEventType";

/** Runs `meanwhile` just before the route's first checked write of `what` goes to the store. */
function beforeFirstCheckedWrite(what: CheckedWrite, meanwhile: () => Promise<unknown>) {
  const write = api.store[what].bind(api.store) as (
    row: unknown,
    seenAt?: number,
  ) => Promise<boolean>;
  let done = false;
  return vi.spyOn(api.store, what).mockImplementation((async (row: unknown, seenAt?: number) => {
    if (seenAt !== undefined && !done) {
      done = true;
      await meanwhile();
    }
    return write(row, seenAt);
  }) as never);
}

describe("changes to one endpoint made at once", () => {
  it("a rotation overtaken by a URL change keeps both", async () => {
    const ep = await api.svix.endpoint.create(appId, { url: "https://example.com/before" });
    const original = (await api.store.getEndpoint(ep.id))!.secrets.current;
    const key = generateSecret();
    const spy = beforeFirstCheckedWrite("updateEndpoint", () =>
      other.svix.endpoint.patch(appId, ep.id, { url: "https://example.com/after" }),
    );
    await api.svix.endpoint.rotateSecret(appId, ep.id, { key });
    spy.mockRestore();

    const stored = (await api.store.getEndpoint(ep.id))!;
    expect(stored.url).toBe("https://example.com/after");
    expect(stored.secrets.current).toBe(key);
    expect(stored.secrets.previous.map((p) => p.secret)).toEqual([original]);
    expect(api.engine.invalidatedEndpoints).toContain(ep.id);
  });

  it("a URL change overtaken by a rotation keeps both", async () => {
    const ep = await api.svix.endpoint.create(appId, { url: "https://example.com/one" });
    const key = generateSecret();
    const spy = beforeFirstCheckedWrite("updateEndpoint", () =>
      other.svix.endpoint.rotateSecret(appId, ep.id, { key }),
    );
    const answer = await api.svix.endpoint.update(appId, ep.id, { url: "https://example.com/two" });
    spy.mockRestore();

    expect(answer.url).toBe("https://example.com/two");
    const stored = (await api.store.getEndpoint(ep.id))!;
    expect(stored.url).toBe("https://example.com/two");
    expect(stored.secrets.current).toBe(key);
  });

  it("refuses a change that keeps losing the race, and writes none of it", async () => {
    const ep = await api.svix.endpoint.create(appId, { url: "https://example.com/busy" });
    const write = api.store.updateEndpoint.bind(api.store);
    let overtaken = 0;
    const spy = vi
      .spyOn(api.store, "updateEndpoint")
      .mockImplementation(async (next: Endpoint, seenAt?: number) => {
        if (seenAt !== undefined) {
          // Someone else's write lands first every time.
          const now = (await api.store.getEndpoint(next.id))!;
          await write({
            ...now,
            metadata: { n: String(++overtaken) },
            updatedAt: now.updatedAt + 1,
          });
        }
        return write(next, seenAt);
      });
    const err = await api.svix.endpoint
      .patch(appId, ep.id, { description: "never" })
      .catch((e: unknown) => e);
    spy.mockRestore();

    expect(err).toBeInstanceOf(ApiException);
    expect((err as ApiException<{ code: string }>).code).toBe(409);
    expect((err as ApiException<{ code: string; detail: string }>).body.detail).toMatch(/again/);
    const stored = (await api.store.getEndpoint(ep.id))!;
    expect(stored.description).toBe("");
    expect(stored.metadata).toEqual({ n: String(overtaken) });
  });

  it("an application's rename overtaken by a policy change keeps both", async () => {
    const app = await api.svix.application.create({ name: "Before" });
    const spy = beforeFirstCheckedWrite("updateApplication", async () => {
      const policy = await other.call("PUT", `/api/v1/app/${app.id}/delivery-policy`, {
        timeoutMs: 5_000,
      });
      expect(policy.status).toBe(200);
    });
    const answer = await api.svix.application.patch(app.id, { name: "After" });
    spy.mockRestore();

    expect(answer.name).toBe("After");
    const stored = (await api.store.findApplication(app.id))!;
    expect(stored.name).toBe("After");
    expect(stored.deliveryPolicy).toEqual({ timeoutMs: 5_000 });
  });

  it("an event type's patch overtaken by its archiving keeps both", async () => {
    await api.svix.eventType.create({ name: "order.placed", description: "Before" });
    const spy = beforeFirstCheckedWrite("updateEventType", () =>
      other.svix.eventType.delete("order.placed"),
    );
    const answer = await api.svix.eventType.patch("order.placed", { description: "After" });
    spy.mockRestore();

    expect(answer).toMatchObject({ description: "After", archived: true });
    expect(await api.store.findEventType("order.placed")).toMatchObject({
      description: "After",
      archived: true,
    });
  });
});
