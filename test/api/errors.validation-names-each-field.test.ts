import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startApi, type ApiHarness } from "./harness.js";

let api: ApiHarness;
let appId: string;
let epId: string;
beforeAll(async () => {
  api = await startApi();
  appId = (await api.svix.application.create({ name: "Validation" })).id;
  epId = (await api.svix.endpoint.create(appId, { url: "https://example.com/v" })).id;
});
afterAll(async () => api.close());

interface Problem {
  loc: (string | number)[];
  msg: string;
  type: string;
}

async function problems(method: string, path: string, body?: unknown): Promise<Problem[]> {
  const res = await api.call(method, path, body);
  expect(res.status).toBe(422);
  const out = (await res.json()) as { code: string; detail: Problem[] };
  expect(out.code).toBe("validation");
  return out.detail;
}

const locs = (ps: Problem[]) => ps.map((p) => p.loc.join("."));

describe("422 answers name each bad field", () => {
  it("endpoint: bad url, bad secret, bad uid, bad version, every one at once", async () => {
    const ps = await problems("POST", `/api/v1/app/${appId}/endpoint`, {
      url: "ftp://example.com",
      secret: "whsec_not-base64!",
      uid: "has space",
      version: 0,
      filterTypes: [""],
      metadata: { a: 1 },
    });
    expect(locs(ps).sort()).toEqual(
      [
        "body.url",
        "body.secret",
        "body.uid",
        "body.version",
        "body.filterTypes.0",
        "body.metadata.a",
      ].sort(),
    );
    expect(ps.find((p) => p.loc[1] === "url")?.msg).toMatch(/http/);
  });

  it("endpoint: url missing, url with a password, url too long", async () => {
    expect(await problems("POST", `/api/v1/app/${appId}/endpoint`, {})).toEqual([
      { loc: ["body", "url"], msg: "field required", type: "missing" },
    ]);
    const withPassword = await problems("POST", `/api/v1/app/${appId}/endpoint`, {
      url: "https://user:pw@example.com/",
    });
    expect(withPassword[0]?.msg).toMatch(/password/);
    const long = `https://example.com/${"a".repeat(2048)}`;
    expect(locs(await problems("POST", `/api/v1/app/${appId}/endpoint`, { url: long }))).toEqual([
      "body.url",
    ]);
  });

  it("endpoint: a reserved custom header is named", async () => {
    const ps = await problems("PUT", `/api/v1/app/${appId}/endpoint/${epId}/headers`, {
      headers: { "X-Fine": "ok", "Webhook-Signature": "forged", Host: "evil" },
    });
    expect(locs(ps).sort()).toEqual(["body.headers.Host", "body.headers.Webhook-Signature"]);
  });

  it("deliveryPolicy problems are named down to the index", async () => {
    const ps = await problems("POST", `/api/v1/app/${appId}/endpoint`, {
      url: "https://example.com/p",
      deliveryPolicy: { retry: { delays: [60, 30] } },
    });
    expect(locs(ps)).toEqual(["body.deliveryPolicy.retry.delays.1"]);
    expect(ps[0]?.type).toBe("decreasing");
    const typo = await problems("PATCH", `/api/v1/app/${appId}`, {
      deliveryPolicy: { concurency: 5 },
    });
    expect(locs(typo)).toEqual(["body.deliveryPolicy.concurency"]);
  });

  it("message: bad eventType, missing payload, too many channels", async () => {
    const ps = await problems("POST", `/api/v1/app/${appId}/msg`, {
      eventType: "has spaces",
      channels: Array.from({ length: 11 }, (_, i) => `c${i}`),
    });
    expect(locs(ps).sort()).toEqual(["body.channels", "body.eventType", "body.payload"]);
    expect(ps.find((p) => p.loc[1] === "payload")).toMatchObject({ type: "missing" });
    const notObject = await problems("POST", `/api/v1/app/${appId}/msg`, {
      eventType: "ok",
      payload: [1, 2],
    });
    expect(locs(notObject)).toEqual(["body.payload"]);
  });

  it("query: limit out of range, bad order, bad date, bad tag", async () => {
    expect(locs(await problems("GET", "/api/v1/app?limit=0"))).toEqual(["query.limit"]);
    expect(locs(await problems("GET", "/api/v1/app?limit=251"))).toEqual(["query.limit"]);
    expect(locs(await problems("GET", "/api/v1/app?limit=ten"))).toEqual(["query.limit"]);
    expect(locs(await problems("GET", "/api/v1/event-type?order=sideways"))).toEqual([
      "query.order",
    ]);
    expect(locs(await problems("GET", `/api/v1/app/${appId}/msg?before=yesterday`))).toEqual([
      "query.before",
    ]);
    expect(locs(await problems("GET", `/api/v1/app/${appId}/msg?tag=a%20b`))).toEqual([
      "query.tag",
    ]);
  });

  it("query: an event type filter of dots says what is wrong with it, not that it is missing", async () => {
    for (const query of ["event_types=a,..", "event_types=a&event_types=."]) {
      const [problem, ...rest] = await problems("GET", `/api/v1/app/${appId}/msg?${query}`);
      expect(rest).toEqual([]);
      expect(problem).toMatchObject({ loc: ["query", "event_types", 1] });
      expect(problem!.msg).toMatch(/'\.' or '\.\.'/);
    }
  });

  it("application: name missing, wrong types", async () => {
    const ps = await problems("POST", "/api/v1/app", { uid: 5, metadata: "x", rateLimit: -1 });
    expect(locs(ps).sort()).toEqual(["body.metadata", "body.name", "body.rateLimit", "body.uid"]);
  });

  it("event type: bad name", async () => {
    const ps = await problems("POST", "/api/v1/event-type", { name: "a b", description: "x" });
    expect(locs(ps)).toEqual(["body.name"]);
  });

  it("path: an id longer than any id could be", async () => {
    expect(locs(await problems("GET", `/api/v1/app/${"a".repeat(300)}`))).toEqual(["path.app_id"]);
  });

  it("names query and body problems of one request together", async () => {
    const ps = await problems("POST", "/api/v1/app?get_if_exists=maybe", { uid: "ok" });
    expect(locs(ps)).toEqual(["query.get_if_exists", "body.name"]);
  });

  it("ignores unknown fields rather than refusing them", async () => {
    const res = await api.call("POST", "/api/v1/app", { name: "ok", someNewSvixField: true });
    expect(res.status).toBe(201);
  });
});
