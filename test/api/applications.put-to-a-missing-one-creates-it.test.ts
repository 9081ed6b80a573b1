/**
 * `PUT /api/v1/app/{app_id}` naming no application creates it (201), as the Svix server does.
 * hookline keeps the path's uid when the body has none, so that the same PUT sent again finds
 * what the first one made (200) instead of making a second application each time.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { newId } from "../../src/ids.js";
import { startApi, type ApiHarness } from "./harness.js";

let api: ApiHarness;
beforeAll(async () => {
  api = await startApi();
});
afterAll(async () => api.close());

type AppOut = { id: string; uid: string | null; name: string; metadata: Record<string, string> };

const put = async (path: string, body: unknown) => {
  const res = await api.call("PUT", `/api/v1/app/${path}`, body);
  return { status: res.status, body: (await res.json()) as AppOut };
};

/** Every application whose name is `name`. */
const named = async (name: string) =>
  (await api.svix.application.list({ limit: 250 })).data.filter((a) => a.name === name);

describe("PUT of an application that does not exist", () => {
  it("creates it with a new id and the path as its uid (201), and finds it again after (200)", async () => {
    const first = await put("customer-42", { name: "Customer 42", metadata: { plan: "pro" } });
    expect(first.status).toBe(201);
    expect(first.body.id).toMatch(/^app_/);
    expect(first.body).toMatchObject({ uid: "customer-42", name: "Customer 42" });
    expect(first.body.metadata).toEqual({ plan: "pro" });

    // Sent again (and again: the uid the path names must survive the update), it is one application.
    for (const name of ["Customer 42", "Customer 42 Inc"]) {
      const again = await put("customer-42", { name });
      expect(again.status).toBe(200);
      expect(again.body).toMatchObject({ id: first.body.id, uid: "customer-42", name });
    }
    expect(await named("Customer 42")).toHaveLength(0);
    expect(await named("Customer 42 Inc")).toHaveLength(1);
  });

  it("is what the Svix client's update gets back", async () => {
    const made = await api.svix.application.update("svix-made", { name: "Svix made" });
    expect(made).toMatchObject({ uid: "svix-made", name: "Svix made" });
    expect((await api.svix.application.get("svix-made")).id).toBe(made.id);
    const again = await api.svix.application.update("svix-made", { name: "Svix made" });
    expect(again.id).toBe(made.id);
  });

  it("takes the body's uid over the path's", async () => {
    const made = await put("path-uid", { name: "Body uid", uid: "body-uid" });
    expect(made.status).toBe(201);
    expect(made.body.uid).toBe("body-uid");
    expect((await api.call("GET", "/api/v1/app/path-uid")).status).toBe(404);
  });

  it("creates one with a new id and the body's uid when the path is an id nothing has", async () => {
    const missing = newId("app");
    const withUid = await put(missing, { name: "Under an id", uid: "under-an-id" });
    expect(withUid.status).toBe(201);
    expect(withUid.body.id).not.toBe(missing);
    expect(withUid.body.uid).toBe("under-an-id");

    const without = await put(newId("app"), { name: "No uid at all" });
    expect(without.status).toBe(201);
    expect(without.body.uid).toBeNull();
  });

  it("still clears the uid of one named by its id when the body has none", async () => {
    const made = await put("to-be-cleared", { name: "Cleared" });
    const cleared = await put(made.body.id, { name: "Cleared" });
    expect(cleared.status).toBe(200);
    expect(cleared.body).toMatchObject({ id: made.body.id, uid: null });
  });

  it("answers 409 and creates nothing when the body's uid is another application's", async () => {
    await api.svix.application.create({ name: "Holder", uid: "held-uid" });
    const res = await put("wants-held", { name: "Taker", uid: "held-uid" });
    expect(res.status).toBe(409);
    expect(res.body).toMatchObject({ code: "conflict" });
    expect(await named("Taker")).toHaveLength(0);
  });

  it("refuses an application's token (403) and creates nothing", async () => {
    const { id } = await api.svix.application.create({ name: "Token owner" });
    const made = await api.call("POST", "/api/v1/tokens", { name: "t", scope: "app", appId: id });
    const { token } = (await made.json()) as { token: string };
    const res = await api.call(
      "PUT",
      "/api/v1/app/made-by-a-token",
      { name: "By a token" },
      { authorization: `Bearer ${token}` },
    );
    expect(res.status).toBe(403);
    expect((await api.call("GET", "/api/v1/app/made-by-a-token")).status).toBe(404);
  });
});
