/**
 * hookline serves the dashboard itself: pages revalidated, hashed assets cached for a year, right
 * content types, a strict content security policy, and only the portal may be framed.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startHookline, type TestHookline } from "../support/hookline.js";

describe("dashboard assets", () => {
  let h: TestHookline;
  beforeAll(async () => {
    h = await startHookline();
  });
  afterAll(() => h.stop());

  it("serves the console and the portal page with no-cache and a strict policy", async () => {
    const ui = await fetch(`${h.url}/ui/`);
    expect(ui.status).toBe(200);
    expect(ui.headers.get("content-type")).toBe("text/html; charset=utf-8");
    expect(ui.headers.get("cache-control")).toBe("no-cache");
    expect(ui.headers.get("content-security-policy")).toContain("frame-ancestors 'none'");
    expect(ui.headers.get("content-security-policy")).toContain("script-src 'self'");
    const portal = await fetch(`${h.url}/portal/`);
    expect(portal.status).toBe(200);
    expect(portal.headers.get("content-security-policy")).toContain("frame-ancestors *");

    const html = await ui.text();
    const script = /src="(\/ui\/assets\/[^"]+\.js)"/.exec(html)?.[1];
    const style = /href="(\/ui\/assets\/[^"]+\.css)"/.exec(html)?.[1];
    expect(script && style).toBeTruthy();
    expect(html).not.toMatch(/https?:\/\//);
    const js = await fetch(`${h.url}${script}`);
    expect(js.headers.get("content-type")).toBe("text/javascript; charset=utf-8");
    expect(js.headers.get("cache-control")).toBe("public, max-age=31536000, immutable");
    const css = await fetch(`${h.url}${style}`);
    expect(css.headers.get("content-type")).toBe("text/css; charset=utf-8");
  });

  it("redirects bare paths and refuses anything outside the assets", async () => {
    const bare = await fetch(`${h.url}/ui`, { redirect: "manual" });
    expect(bare.status).toBe(302);
    expect(bare.headers.get("location")).toBe("/ui/");
    expect((await fetch(`${h.url}/ui/assets/..%2F..%2Fpackage.json`)).status).toBe(404);
    expect((await fetch(`${h.url}/ui/assets/missing.js`)).status).toBe(404);
  });
});
