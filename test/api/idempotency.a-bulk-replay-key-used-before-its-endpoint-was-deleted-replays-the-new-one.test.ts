/**
 * A bulk replay (`POST /api/v1/dlq/replay`) that names an endpoint by its uid keeps its
 * idempotency key by that endpoint too, and the key goes with it as those of its own paths do: an
 * operator who deleted "my-ep", made it again and sent the replay of its records with a key used
 * before was answered 202 with the old endpoint's job (replayed), and nothing was replayed. Deleting
 * the application still forgets the key.
 */
import { afterEach, describe, expect, it } from "vitest";
import { startHooklineOn, type TestHookline } from "../support/hookline.js";

describe.each(["sqlite", "postgres"] as const)("on %s", (kind) => {
  let h: TestHookline | null = null;
  afterEach(async () => {
    await h?.stop();
    h = null;
  });

  it("a key that replayed the endpoint's records before it was deleted starts a new job", async () => {
    h = await startHooklineOn(kind);
    const { svix } = h;
    const myEp = { url: "https://receiver.example/hooks", uid: "my-ep" };
    const replay = async () => {
      const res = await fetch(`${h!.url}/api/v1/dlq/replay`, {
        method: "POST",
        headers: {
          authorization: `Bearer ${h!.token}`,
          "content-type": "application/json",
          "idempotency-key": "replay-my-ep",
        },
        body: JSON.stringify({ appId: "acme", endpointId: "my-ep" }),
      });
      const body = (await res.json()) as { id: string };
      return { status: res.status, id: body.id, replayed: res.headers.get("idempotent-replayed") };
    };
    const job = async (id: string) =>
      (await h!.api<{ id: string }>("GET", `/api/v1/dlq/replay/${id}`)).status;

    await svix.application.create({ name: "Acme", uid: "acme" });
    await svix.endpoint.create("acme", myEp);
    const first = await replay();
    expect(first).toMatchObject({ status: 202, replayed: null });
    // While the endpoint lives, the key replays the job it started.
    expect(await replay()).toEqual({ ...first, replayed: "true" });

    await svix.endpoint.delete("acme", "my-ep");
    await svix.endpoint.create("acme", myEp);
    const second = await replay();
    expect(second).toMatchObject({ status: 202, replayed: null });
    expect(second.id).not.toBe(first.id);
    expect(await job(second.id)).toBe(200);

    // An application's deletion forgets it too, the endpoint named or not.
    await svix.application.delete("acme");
    await svix.application.create({ name: "Acme", uid: "acme" });
    await svix.endpoint.create("acme", myEp);
    const third = await replay();
    expect(third).toMatchObject({ status: 202, replayed: null });
    expect(third.id).not.toBe(second.id);
  });
});
