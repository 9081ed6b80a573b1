/**
 * A receiver's Retry-After sets the wait before the next attempt (honoured up to 4 h, capped at
 * 4 h up to 24 h, ignored past that), but nothing said so: attempts kept no response headers, and
 * a customer saw a retry 2 min off where the ladder's was 5 s with nothing to explain it. Each
 * attempt now says (`retryAfter`, a hookline extension) the wait asked for and the one kept, on
 * both stores; null where the ladder set the time. Where hookline ignored it (past 24 h, or
 * neither a number nor a date), a retry 10 s off after an ask for 48 h said nothing of why: the
 * attempt now says what was ignored and why (`retryAfterIgnored`).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startHooklineOn, type TestHookline } from "../support/hookline.js";
import { Receiver } from "../support/receiver.js";

/** What each receiver path answers its one request with: 503 and this Retry-After. */
const ASKED: Record<string, string | null> = {
  "/asked": "120",
  "/capped": String(6 * 3600),
  "/past-a-day": String(2 * 86_400),
  "/malformed": "after lunch",
  "/none": null,
};

interface AttemptJson {
  id: string;
  endpointId: string;
  retryAfter: { askedSeconds: number; waitSeconds: number } | null;
  retryAfterIgnored: { reason: string; askedSeconds?: number; value?: string } | null;
}

describe.each(["sqlite", "postgres"] as const)("on %s", (kind) => {
  let h: TestHookline;
  let rx: Receiver;
  let appId: string;
  let msgId: string;
  const endpointOf: Record<string, string> = {};

  beforeAll(async () => {
    h = await startHooklineOn(kind);
    rx = await Receiver.start((req) => {
      const asked = ASKED[req.path];
      const headers: Record<string, string> = asked ? { "retry-after": asked } : {};
      return { status: 503, headers, body: "busy" };
    });
    appId = (await h.svix.application.create({ name: "Acme" })).id;
    for (const path of Object.keys(ASKED)) {
      endpointOf[path] = (await h.svix.endpoint.create(appId, { url: rx.url(path) })).id;
    }
    msgId = (await h.svix.message.create(appId, { eventType: "order.created", payload: {} })).id;
    const waiting = new Set<string>();
    await h.waitFor((e) => {
      if (e.type === "delivery" && e.messageId === msgId && e.state === "pending") {
        waiting.add(e.endpointId);
      }
      return waiting.size === Object.keys(ASKED).length;
    });
  });
  afterAll(async () => {
    await h?.stop();
    await rx?.close();
  });

  it("says the wait each answer's Retry-After asked for and the one hookline kept", async () => {
    const { status, body } = await h.api<{ data: AttemptJson[] }>(
      "GET",
      `/api/v1/app/${appId}/attempt/msg/${msgId}`,
    );
    expect(status).toBe(200);
    const said = Object.fromEntries(
      Object.entries(endpointOf).map(([path, id]) => [
        path,
        body.data.find((a) => a.endpointId === id)?.retryAfter,
      ]),
    );
    expect(said).toEqual({
      "/asked": { askedSeconds: 120, waitSeconds: 120 },
      "/capped": { askedSeconds: 6 * 3600, waitSeconds: 4 * 3600 },
      "/past-a-day": null,
      "/malformed": null,
      "/none": null,
    });
  });

  it("says what hookline ignored of a Retry-After, and why, where the ladder set the wait", async () => {
    const { body } = await h.api<{ data: AttemptJson[] }>(
      "GET",
      `/api/v1/app/${appId}/attempt/msg/${msgId}`,
    );
    const said = Object.fromEntries(
      Object.entries(endpointOf).map(([path, id]) => [
        path,
        body.data.find((a) => a.endpointId === id)?.retryAfterIgnored,
      ]),
    );
    expect(said).toEqual({
      "/asked": null,
      "/capped": null,
      "/past-a-day": { reason: "too-long", askedSeconds: 2 * 86_400 },
      "/malformed": { reason: "malformed", value: "after lunch" },
      "/none": null,
    });
    // The attempt read alone says the same.
    const { id } = body.data.find((a) => a.endpointId === endpointOf["/malformed"])!;
    const one = await h.api<AttemptJson>("GET", `/api/v1/app/${appId}/msg/${msgId}/attempt/${id}`);
    expect(one.body.retryAfterIgnored).toEqual({ reason: "malformed", value: "after lunch" });
  });
});
