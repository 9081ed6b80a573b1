/**
 * The router decodes a request's path (and takes the path out of an absolute-form target such as
 * `GET http://host/api/v1/tokens`) before matching it, so the token check must follow the route
 * matched, not the raw request target: every spelling of a guarded route needs a token.
 */
import { request } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startApi, type ApiHarness } from "./harness.js";

let api: ApiHarness;
let appId = "";
let endpointId = "";
let appToken = "";
beforeAll(async () => {
  api = await startApi();
  appId = (await api.svix.application.create({ name: "A", uid: "app-a" })).id;
  endpointId = (await api.svix.endpoint.create(appId, { url: "https://example.com/a" })).id;
  const made = await api.call("POST", "/api/v1/tokens", { name: "a", scope: "app", appId });
  appToken = ((await made.json()) as { token: string }).token;
});
afterAll(async () => api.close());

interface Answer {
  status: number;
  body: string;
}

/** Sends `target` exactly as written (node:http does not rewrite it; fetch would). */
function send(
  method: string,
  target: string,
  options: { token?: string; body?: unknown } = {},
): Promise<Answer> {
  const { port } = new URL(api.url);
  const body = options.body === undefined ? undefined : JSON.stringify(options.body);
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: "127.0.0.1",
        port,
        method,
        path: target,
        headers: {
          ...(options.token ? { authorization: `Bearer ${options.token}` } : {}),
          ...(body === undefined ? {} : { "content-type": "application/json" }),
        },
      },
      (res) => {
        let text = "";
        res.on("data", (c: Buffer) => (text += c.toString()));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, body: text }));
      },
    );
    req.on("error", reject);
    req.end(body);
  });
}

const tokenNames = async (): Promise<string[]> => {
  const res = await api.call("GET", "/api/v1/tokens");
  return ((await res.json()) as { data: { name: string }[] }).data.map((t) => t.name);
};

describe("a route reached by another spelling of its path", () => {
  const guarded = () => [
    "/%61pi/v1/tokens",
    "/%61%70%69/v1/app",
    `/api/v1/app/${appId}/endpoint/${endpointId}/%73ecret`,
    `/%61pi/v1/app/${appId}/endpoint/${endpointId}/secret`,
    "/%6Detrics",
    `http://127.0.0.1/api/v1/tokens`,
    `http://evil.example/api/v1/app/${appId}/endpoint/${endpointId}/secret`,
    "http://127.0.0.1/metrics",
    "http://127.0.0.1/%61pi/v1/app",
  ];

  it("answers 401 without a token, as its plain path does", async () => {
    for (const target of guarded()) {
      const res = await send("GET", target);
      expect(res.status, target).toBe(401);
      expect(JSON.parse(res.body), target).toMatchObject({ code: "authentication_failed" });
    }
  });

  it("creates no admin token for a stranger", async () => {
    for (const target of ["/%61pi/v1/tokens", "http://127.0.0.1/api/v1/tokens"]) {
      const res = await send("POST", target, { body: { name: "stolen", scope: "admin" } });
      expect(res.status, target).toBe(401);
    }
    expect(await tokenNames()).not.toContain("stolen");
  });

  it("answers 403 to an application's token on an admin route", async () => {
    for (const target of ["/%61pi/v1/tokens", "http://127.0.0.1/api/v1/tokens"]) {
      const res = await send("GET", target, { token: appToken });
      expect(res.status, target).toBe(403);
    }
  });

  it("still needs a token for an unknown route under /api/, and serves the dashboard without", async () => {
    for (const target of ["/api/v1/no-such-route", "/%61pi/v1/no-such-route"]) {
      expect((await send("GET", target)).status, target).toBe(401);
    }
    // The dashboard's pages are public (503 when it is not built, but never 401).
    expect([200, 503]).toContain((await send("GET", "/ui/")).status);
    expect([200, 503]).toContain((await send("GET", "http://127.0.0.1/ui/")).status);
  });

  it("works with the admin token", async () => {
    const res = await send("GET", "/%61pi/v1/tokens", { token: api.token });
    expect(res.status).toBe(200);
  });
});
