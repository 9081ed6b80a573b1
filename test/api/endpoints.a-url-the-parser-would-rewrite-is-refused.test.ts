/**
 * The URL parser forgives typos: spaces around a URL, a tab or line break in it, `http:/host` or
 * `http:\\host` for `http://host`. An endpoint saved so kept the text as sent and delivered to what
 * the parser made of it (`http:/127.0.0.1/x` went to port 80 of that host). Such a URL is refused
 * with a 422 on `url` where the typo was made, and nothing is saved.
 */
import { afterAll, beforeAll, expect, it } from "vitest";
import { startApi, type ApiHarness } from "./harness.js";

let api: ApiHarness;
let appId = "";
let endpointId = "";
beforeAll(async () => {
  api = await startApi();
  appId = (await api.svix.application.create({ name: "typos" })).id;
  endpointId = (await api.svix.endpoint.create(appId, { url: "https://example.com/hook" })).id;
});
afterAll(async () => api.close());

const problemOnUrl = async (res: Response): Promise<string> => {
  expect(res.status).toBe(422);
  const body = (await res.json()) as { detail: { loc: unknown[]; msg: string }[] };
  const onUrl = body.detail.filter((p) => p.loc.join(".") === "body.url");
  expect(onUrl).toHaveLength(1);
  return onUrl[0]!.msg;
};

it("refuses spaces, tabs and line breaks, around the URL or in it, on create, update and patch", async () => {
  for (const url of [
    " https://example.com/hook",
    "https://example.com/hook ",
    "https://example.com/a b",
    "https://exa\tmple.com/",
    "https://example.com/\n",
  ]) {
    for (const [method, path] of [
      ["POST", `/api/v1/app/${appId}/endpoint`],
      ["PUT", `/api/v1/app/${appId}/endpoint/${endpointId}`],
      ["PATCH", `/api/v1/app/${appId}/endpoint/${endpointId}`],
    ] as const) {
      expect(await problemOnUrl(await api.call(method, path, { url })), `${method} ${url}`).toBe(
        "must not contain spaces, tabs, line breaks or other control characters",
      );
    }
  }
  const list = await api.svix.endpoint.list(appId);
  expect(list.data.map((e) => e.url)).toEqual(["https://example.com/hook"]);
});

it("refuses a scheme without its two slashes", async () => {
  for (const url of ["http:/127.0.0.1/x", "https:example.com/x", "http:\\\\example.com/x"]) {
    const res = await api.call("POST", `/api/v1/app/${appId}/endpoint`, { url });
    expect(await problemOnUrl(res), url).toBe("must start with http:// or https:// and a host");
  }
});

it("takes a scheme in capitals, and the URL as written", async () => {
  const ep = await api.svix.endpoint.create(appId, { url: "HTTPS://Example.com/Hook?x=1" });
  expect(ep.url).toBe("HTTPS://Example.com/Hook?x=1");
});
