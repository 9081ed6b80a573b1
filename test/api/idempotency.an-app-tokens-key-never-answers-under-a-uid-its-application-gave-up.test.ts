/**
 * An application's token keeps its idempotency keys after its application gives up its uid
 * (they are the token's, scoped by it, and not forgotten), but a key sent again on a path naming
 * that uid never replays there once another application has taken it: the path is refused as
 * another application's (404) before any key is looked at, so the old answer (the first
 * application's message) is not given for the new one, and nothing is sent to it.
 */
import { afterEach, describe, expect, it } from "vitest";
import { startHooklineOn, type TestHookline } from "../support/hookline.js";

describe.each(["sqlite", "postgres"] as const)("on %s", (kind) => {
  let h: TestHookline | null = null;
  afterEach(async () => {
    await h?.stop();
    h = null;
  });

  it("a key its token used under 'acme' is refused with the path once another has the uid", async () => {
    h = await startHooklineOn(kind);
    const { svix } = h;
    const first = await svix.application.create({ name: "Acme", uid: "acme" });
    const made = await h.api<{ token: string }>("POST", "/api/v1/tokens", {
      name: "acme's token",
      scope: "app",
      appId: "acme",
    });
    expect(made.status).toBe(201);
    const order = JSON.stringify({ eventType: "order.paid", payload: { order: 42 } });
    const send = (appIdOrUid: string) =>
      fetch(`${h!.url}/api/v1/app/${appIdOrUid}/msg`, {
        method: "POST",
        headers: {
          authorization: `Bearer ${made.body.token}`,
          "content-type": "application/json",
          "idempotency-key": "send-1",
        },
        body: order,
      });
    const sent = await send("acme");
    expect(sent.status).toBe(202);

    expect((await h.api("PATCH", "/api/v1/app/acme", { uid: "acme-old" })).status).toBe(200);
    const second = await svix.application.create({ name: "Acme again", uid: "acme" });
    expect(second.id).not.toBe(first.id);

    const again = await send("acme");
    expect(again.status).toBe(404);
    expect(again.headers.get("idempotent-replayed")).toBeNull();
    expect((await svix.message.list(second.id)).data).toEqual([]);
    // Its own application, by the uid it has now, is another path: the key runs there afresh.
    const own = await send("acme-old");
    expect(own.status).toBe(202);
    expect(own.headers.get("idempotent-replayed")).toBeNull();
  });
});
