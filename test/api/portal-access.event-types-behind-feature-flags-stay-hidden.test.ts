/**
 * Event types behind feature flags (Svix's way to keep a bespoke or unreleased event type from
 * customers): an application's token sees one only when its portal link was made with one of the
 * type's flags. Admin tokens see every event type.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startHookline, type TestHookline } from "../support/hookline.js";

describe("event types behind feature flags", () => {
  let h: TestHookline;
  let appId = "";
  let endpointId = "";
  beforeAll(async () => {
    h = await startHookline();
    appId = (await h.svix.application.create({ name: "Acme" })).id;
    endpointId = (
      await h.svix.endpoint.create(appId, { url: "http://127.0.0.1:9/hook", disabled: true })
    ).id;
    await h.svix.eventType.create({ name: "invoice.paid", description: "For everyone" });
    await h.svix.eventType.create({
      name: "bigcorp.audit",
      description: "Bespoke for one customer",
      featureFlags: ["bigcorp"],
      schemas: { "1": { examples: [{ auditor: "only BigCorp may see this" }] } },
    });
    await h.svix.eventType.create({
      name: "beta.report",
      description: "Unreleased",
      featureFlags: ["beta", "staff"],
    });
  });
  afterAll(() => h.stop());

  const as = async (token: string, method: string, path: string, body?: unknown) => {
    const res = await fetch(`${h.url}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${token}`,
        ...(body === undefined ? {} : { "content-type": "application/json" }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: res.status, body: (await res.json()) as Record<string, unknown> };
  };
  /** Every event type name the token lists, page by page. */
  const listed = async (token: string): Promise<string[]> => {
    const names: string[] = [];
    let query = "limit=1";
    for (;;) {
      const page = await as(token, "GET", `/api/v1/event-type?${query}`);
      expect(page.status).toBe(200);
      const { data, iterator, done } = page.body as {
        data: { name: string }[];
        iterator: string | null;
        done: boolean;
      };
      names.push(...data.map((e) => e.name));
      if (done) return names;
      query = `limit=1&iterator=${iterator}`;
    }
  };
  const portalToken = async (featureFlags?: string[]) =>
    (await h.svix.authentication.appPortalAccess(appId, { featureFlags })).token;

  it("a portal link without flags sees only the event types without any", async () => {
    const token = await portalToken();
    expect(await listed(token)).toEqual(["invoice.paid"]);
    expect((await as(token, "GET", "/api/v1/event-type/invoice.paid")).status).toBe(200);
    // The same answer as for an event type that does not exist.
    const hidden = await as(token, "GET", "/api/v1/event-type/bigcorp.audit");
    expect(hidden).toEqual({
      status: 404,
      body: { code: "not_found", detail: "event type bigcorp.audit not found" },
    });
  });

  it("a portal link made with a flag sees the event types carrying it too", async () => {
    const bigcorp = await portalToken(["bigcorp"]);
    expect(await listed(bigcorp)).toEqual(["bigcorp.audit", "invoice.paid"]);
    expect((await as(bigcorp, "GET", "/api/v1/event-type/bigcorp.audit")).status).toBe(200);
    expect((await as(bigcorp, "GET", "/api/v1/event-type/beta.report")).status).toBe(404);
    // One of an event type's flags is enough.
    const staff = await portalToken(["staff"]);
    expect(await listed(staff)).toEqual(["beta.report", "invoice.paid"]);
  });

  it("an application token made through the token API sees no flagged event type", async () => {
    const made = await h.api<{ token: string }>("POST", "/api/v1/tokens", {
      name: "acme backend",
      scope: "app",
      appId,
    });
    expect(await listed(made.body.token)).toEqual(["invoice.paid"]);
  });

  it("a hidden event type's example is not sent as a test event", async () => {
    const token = await portalToken();
    const sent = await as(
      token,
      "POST",
      `/api/v1/app/${appId}/endpoint/${endpointId}/send-example`,
      { eventType: "bigcorp.audit" },
    );
    // Disabled endpoint: refused before anything is written, as for any event type.
    expect(sent.status).toBe(422);
    await h.svix.endpoint.patch(appId, endpointId, { disabled: false });
    const again = await as(
      token,
      "POST",
      `/api/v1/app/${appId}/endpoint/${endpointId}/send-example`,
      { eventType: "bigcorp.audit" },
    );
    expect(again.status).toBe(202);
    expect(JSON.stringify(again.body.payload)).not.toContain("only BigCorp");
  });

  it("a portal link with a flag no event type could have is refused (422 naming it)", async () => {
    const made = await h.api<{ detail: { loc: unknown[] }[] }>(
      "POST",
      `/api/v1/auth/app-portal-access/${appId}`,
      { featureFlags: ["beta", "bad flag!"] },
    );
    expect(made.status).toBe(422);
    expect(made.body.detail.map((p) => p.loc)).toEqual([["body", "featureFlags", 1]]);
  });

  it("admin tokens see every event type", async () => {
    expect(await listed(h.token)).toEqual(["beta.report", "bigcorp.audit", "invoice.paid"]);
    expect((await h.api("GET", "/api/v1/event-type/bigcorp.audit")).status).toBe(200);
  });
});
