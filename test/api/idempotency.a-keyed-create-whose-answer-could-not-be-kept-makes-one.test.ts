/**
 * A keyed POST that makes something new each time it runs (an endpoint or an application without
 * a uid, a resend, a test event, a token) kept its answer on its key only after its write: when
 * that second write failed, the key stayed "in progress" for its 60 s lock, and the client's retry
 * after it ran again. A second endpoint at the same URL had every later message delivered twice; a
 * second resend, or test event, reached the customer once more; a second token stayed valid with
 * its secret lost. The answer is now kept in the write's own
 * transaction, as a message's is: the retry replays it, and when it cannot be kept there, nothing
 * is written either (500, the key freed), and the retry makes it once.
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { FastifyInstance } from "fastify";
import { buildApi } from "../../src/api/server.js";
import type { PostgresStore } from "../../src/store/postgres/store.js";
import type { SqliteStore } from "../../src/store/sqlite/store.js";
import { FakeClock } from "../support/fake-clock.js";
import {
  acceptAnswersAgain,
  refuseAnswers,
  storeThatCannotKeepAnswers,
} from "../support/answers-not-kept.js";
import { attemptDue, startApi, type ApiHarness } from "./harness.js";

/** One keyed POST that makes something each time it runs, and how many of those there are. */
interface Case {
  name: string;
  status: number;
  path(): string;
  body?: unknown;
  made(): Promise<number>;
  /** What happens to what it made before the client retries (a resend is delivered). */
  meanwhile?(): Promise<void>;
}

describe.each(["sqlite", "postgres"] as const)("on %s", (kind) => {
  let api: ApiHarness<SqliteStore | PostgresStore>;
  let other: FastifyInstance | null = null;
  let clock: FakeClock;
  let appId: string;
  let endpointId: string;
  let msgId: string;
  beforeEach(async () => {
    clock = new FakeClock(Date.now());
    api = await startApi({}, clock, kind);
    appId = (await api.svix.application.create({ name: "acme", uid: "acme" })).id;
    endpointId = (await api.svix.endpoint.create(appId, { url: "https://example.com/hook" })).id;
    msgId = (await api.svix.message.create(appId, { eventType: "a.b", payload: {} })).id;
    // The message reached the endpoint: a resend now makes a delivery of its own.
    await attemptDue(api, () => ({ status: 200, url: "https://example.com/hook", response: "" }));
  });
  afterEach(async () => {
    await other?.close();
    other = null;
    await api.close();
  });

  const delivered = () =>
    attemptDue(api, () => ({ status: 200, url: "https://example.com/hook", response: "" }));
  const cases: Case[] = [
    {
      name: "endpoint.create without a uid",
      status: 201,
      path: () => `/api/v1/app/${appId}/endpoint`,
      body: { url: "https://example.com/second" },
      made: async () =>
        (await api.svix.endpoint.list(appId)).data.filter(
          (ep) => ep.url === "https://example.com/second",
        ).length,
    },
    {
      name: "application.create without a uid",
      status: 201,
      path: () => "/api/v1/app",
      body: { name: "beta" },
      made: async () =>
        (await api.svix.application.list()).data.filter((a) => a.name === "beta").length,
    },
    {
      name: "a message's resend",
      status: 202,
      path: () => `/api/v1/app/${appId}/msg/${msgId}/endpoint/${endpointId}/resend`,
      made: async () =>
        (await api.store.listDeliveries(msgId)).filter((d) => d.origin === "resend").length,
      meanwhile: delivered,
    },
    {
      name: "an endpoint's test event",
      status: 202,
      path: () => `/api/v1/app/${appId}/endpoint/${endpointId}/send-example`,
      body: { eventType: "a.b" },
      made: async () =>
        (await api.svix.message.list(appId)).data.filter((m) => m.tags?.includes("hookline.test"))
          .length,
      meanwhile: delivered,
    },
    {
      name: "an API token",
      status: 201,
      path: () => "/api/v1/tokens",
      body: { name: "ci", scope: "app", appId: "acme" },
      made: async () =>
        (await api.store.listApiTokens({ limit: 50, appId })).data.filter((t) => t.name === "ci")
          .length,
    },
    {
      name: "a portal link",
      status: 200,
      path: () => `/api/v1/auth/app-portal-access/${appId}`,
      body: {},
      made: async () => (await api.store.listApiTokens({ limit: 50, appId })).data.length,
    },
  ];

  const postTo = (url: string, c: Case) =>
    fetch(url + c.path(), {
      method: "POST",
      headers: {
        authorization: `Bearer ${api.token}`,
        "idempotency-key": "once-1",
        ...(c.body === undefined ? {} : { "content-type": "application/json" }),
      },
      body: c.body === undefined ? undefined : JSON.stringify(c.body),
    });

  describe.each(cases)("$name", (c) => {
    it("replays the answer to the retry, past the key's lock too, and makes one", async () => {
      other = buildApi({ ...api.deps, store: storeThatCannotKeepAnswers(api.store) });
      const url = (await other.listen({ host: "127.0.0.1", port: 0 })).replace(
        "localhost",
        "127.0.0.1",
      );
      const first = await postTo(url, c);
      expect(first.status).toBe(c.status);
      const answered = await first.text();
      await c.meanwhile?.();

      clock.advance(61_000);
      const retry = await postTo(url, c);
      expect(retry.status).toBe(c.status);
      expect(retry.headers.get("idempotent-replayed")).toBe("true");
      expect(await retry.text()).toBe(answered);
      expect(await c.made()).toBe(1);
    });

    it("an answer the database refuses fails the post whole, and the retry makes one", async () => {
      await refuseAnswers(api.db);
      const refused = await postTo(api.url, c);
      expect(refused.status).toBe(500);
      expect(await c.made()).toBe(0);

      await acceptAnswersAgain(api.db);
      const retry = await postTo(api.url, c);
      expect(retry.status).toBe(c.status);
      expect(retry.headers.get("idempotent-replayed")).toBeNull();
      const again = await postTo(api.url, c);
      expect(again.headers.get("idempotent-replayed")).toBe("true");
      expect(await again.text()).toBe(await retry.text());
      expect(await c.made()).toBe(1);
    });
  });
});
