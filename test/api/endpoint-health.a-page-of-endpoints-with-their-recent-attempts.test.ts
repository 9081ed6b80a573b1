/**
 * `GET /api/v1/app/{app_id}/endpoint-health` answers a page of an application's endpoints with
 * their attempts over the last `minutes`, in the endpoint list's order and paging, so the
 * dashboard's endpoints page reads 250 endpoints' health in one request instead of one each. The
 * window is exactly the last `minutes`: an attempt just before it is not counted.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ONE_ATTEMPT, post } from "../support/dlq.js";
import { FakeClock } from "../support/fake-clock.js";
import { deliveryOf, startHookline, type TestHookline } from "../support/hookline.js";
import { Receiver } from "../support/receiver.js";

interface Health {
  endpointId: string;
  attempts: number;
  successes: number;
  successRate: number | null;
  meanDurationMs: number | null;
}
interface Page {
  data: Health[];
  iterator: string | null;
  done: boolean;
  since: string;
}

const START = Date.UTC(2026, 0, 1, 10, 0);
const clock = new FakeClock(START);
let h: TestHookline;
let rx: Receiver;
let appId: string;
const ep: Record<"good" | "mixed" | "idle", string> = { good: "", mixed: "", idle: "" };

/** Moves the clock to `minutes` past 10:00. */
const at = (minutes: number) => clock.advance(START + minutes * 60_000 - clock.now());

beforeAll(async () => {
  h = await startHookline({ overrides: { clock } });
  // Every other request to /mixed fails.
  let mixed = 0;
  rx = await Receiver.start((req) => ({
    status: req.path === "/mixed" && mixed++ % 2 === 1 ? 500 : 200,
  }));
  appId = (await h.svix.application.create({ name: "shop" })).id;
  for (const name of ["good", "mixed", "idle"] as const) {
    const made = await h.api<{ id: string }>("POST", `/api/v1/app/${appId}/endpoint`, {
      url: rx.url(`/${name}`),
      filterTypes: [`to.${name}`],
      deliveryPolicy: ONE_ATTEMPT,
    });
    ep[name] = made.body.id;
  }
  const send = async (name: "good" | "mixed", minutes: number) => {
    at(minutes);
    const msg = await post(h, appId, {}, { eventType: `to.${name}` });
    await h.waitFor((e) => deliveryOf(msg, "succeeded")(e) || deliveryOf(msg, "dead")(e));
  };
  await send("good", 0); // 10:00, outside the window read at 11:01
  await send("good", 2);
  await send("good", 50);
  for (const minutes of [30, 31, 32, 33]) await send("mixed", minutes);
  at(61);
});
afterAll(async () => {
  await h.stop();
  await rx.close();
});

const read = (query = "") =>
  h.api<Page>("GET", `/api/v1/app/${appId}/endpoint-health${query ? `?${query}` : ""}`);

describe("the endpoint-health list", () => {
  it("counts each endpoint's attempts of the last hour, newest endpoint first", async () => {
    const res = await read();
    expect(res.status).toBe(200);
    expect(res.body.since).toBe(new Date(START + 60_000).toISOString());
    expect(res.body.done).toBe(true);
    const [idle, mixed, good] = res.body.data;
    expect(idle).toEqual({
      endpointId: ep.idle,
      attempts: 0,
      successes: 0,
      successRate: null,
      meanDurationMs: null,
    });
    expect(mixed).toMatchObject({ endpointId: ep.mixed, attempts: 4, successes: 2 });
    expect(mixed!.successRate).toBe(0.5);
    expect(good).toMatchObject({ endpointId: ep.good, attempts: 2, successRate: 1 });
    expect(good!.meanDurationMs).toBeGreaterThanOrEqual(0);
  });

  it("takes a wider window and pages as the endpoint list does", async () => {
    const wide = await read("minutes=120");
    expect(wide.body.data.find((x) => x.endpointId === ep.good)!.attempts).toBe(3);

    const list = await h.svix.endpoint.list(appId, { order: "ascending" as never, limit: 250 });
    const seen: string[] = [];
    let query = "limit=1&order=ascending";
    for (;;) {
      const page = await read(query);
      expect(page.body.data).toHaveLength(1);
      seen.push(page.body.data[0]!.endpointId);
      if (page.body.done) break;
      query = `limit=1&order=ascending&iterator=${page.body.iterator}`;
    }
    expect(seen).toEqual(list.data.map((e) => e.id));
  });

  it("refuses a bad window or iterator, naming it, and an unknown application", async () => {
    for (const [query, field] of [
      ["minutes=0", "minutes"],
      [`minutes=${7 * 24 * 60 + 1}`, "minutes"],
      ["iterator=msg_nope", "iterator"],
    ] as const) {
      const res = await read(query);
      expect(res.status, query).toBe(422);
      expect((res.body as unknown as { detail: { loc: string[] }[] }).detail[0]!.loc).toEqual([
        "query",
        field,
      ]);
    }
    expect((await h.api("GET", "/api/v1/app/nope/endpoint-health")).status).toBe(404);
  });

  it("is read by the application's own token; to another's it is not there", async () => {
    const other = await h.svix.application.create({ name: "other" });
    const tokenFor = async (app: string) =>
      (
        await h.api<{ token: string }>("POST", "/api/v1/tokens", {
          name: "t",
          scope: "app",
          appId: app,
        })
      ).body.token;
    const get = async (token: string) =>
      (
        await fetch(`${h.url}/api/v1/app/${appId}/endpoint-health`, {
          headers: { authorization: `Bearer ${token}` },
        })
      ).status;
    expect(await get(await tokenFor(appId))).toBe(200);
    expect(await get(await tokenFor(other.id))).toBe(404);
  });
});
