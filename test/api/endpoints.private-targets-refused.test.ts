import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startApi, type ApiHarness } from "./harness.js";

let strict: ApiHarness;
let lax: ApiHarness;
let strictApp: string;
let laxApp: string;
beforeAll(async () => {
  strict = await startApi({ allowPrivateTargets: false });
  lax = await startApi();
  strictApp = (await strict.svix.application.create({ name: "strict" })).id;
  laxApp = (await lax.svix.application.create({ name: "lax" })).id;
});
afterAll(async () => {
  await strict.close();
  await lax.close();
});

describe("endpoint URLs pointing at private addresses", () => {
  for (const url of [
    "http://127.0.0.1/hook",
    "http://169.254.169.254/latest/meta-data",
    "http://[::ffff:10.0.0.1]/hook",
    "http://localhost:8080/hook",
    "http://[::1]/",
    "http://10.1.2.3/",
    "http://0.0.0.0/",
    "http://2130706433/",
  ]) {
    it(`refuses ${url} with a reason on body.url when private targets are off`, async () => {
      const res = await strict.call("POST", `/api/v1/app/${strictApp}/endpoint`, { url });
      expect(res.status).toBe(422);
      const body = (await res.json()) as { detail: { loc: string[]; msg: string; type: string }[] };
      expect(body.detail).toHaveLength(1);
      expect(body.detail[0]).toMatchObject({ loc: ["body", "url"], type: "url_refused" });
      expect(body.detail[0]!.msg).toMatch(/loopback|private|metadata|unspecified|link-local/);
    });
  }

  it("names the metadata service as such", async () => {
    const res = await strict.call("POST", `/api/v1/app/${strictApp}/endpoint`, {
      url: "http://169.254.169.254/",
    });
    const body = (await res.json()) as { detail: { msg: string }[] };
    expect(body.detail[0]!.msg).toMatch(/metadata/);
  });

  it("refuses a private URL on update and patch too", async () => {
    const ep = await strict.svix.endpoint.create(strictApp, { url: "https://203.0.114.10/ok" });
    await expect(
      strict.svix.endpoint.update(strictApp, ep.id, { url: "http://127.0.0.1/" }),
    ).rejects.toMatchObject({ code: 422 });
    await expect(
      strict.svix.endpoint.patch(strictApp, ep.id, { url: "http://192.168.1.1/" }),
    ).rejects.toMatchObject({ code: 422 });
  });

  it("refuses a private URL on a PUT that would create the endpoint, and creates nothing", async () => {
    await expect(
      strict.svix.endpoint.update(strictApp, "put-made", { url: "http://10.0.0.1/" }),
    ).rejects.toMatchObject({ code: 422, body: { detail: [{ loc: ["body", "url"] }] } });
    await expect(strict.svix.endpoint.get(strictApp, "put-made")).rejects.toMatchObject({
      code: 404,
    });
  });

  it("accepts a public address literal when private targets are off", async () => {
    const ep = await strict.svix.endpoint.create(strictApp, { url: "https://8.8.8.8/hook" });
    expect(ep.url).toBe("https://8.8.8.8/hook");
  });

  it("accepts 127.0.0.1 and localhost when private targets are allowed", async () => {
    const a = await lax.svix.endpoint.create(laxApp, { url: "http://127.0.0.1:3000/hook" });
    const b = await lax.svix.endpoint.create(laxApp, { url: "http://localhost:3000/hook" });
    expect([a.url, b.url]).toEqual(["http://127.0.0.1:3000/hook", "http://localhost:3000/hook"]);
  });
});
