/**
 * A message posted with an idempotency key is stored, and its answer (202) sent, but a separate
 * write of that answer to the key fails: the key then stayed "in progress" for its 60 s lock, and
 * after it the client's retry ran again, and the customer's endpoint got the same message twice.
 * The answer is now kept in the message's own transaction, so the retry replays it; and when the
 * answer cannot be written there, the message is not stored either, and the retry makes it once.
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { FastifyInstance } from "fastify";
import { Svix } from "svix";
import { buildApi } from "../../src/api/server.js";
import type { Store } from "../../src/store/port.js";
import type { PostgresStore } from "../../src/store/postgres/store.js";
import type { SqliteStore } from "../../src/store/sqlite/store.js";
import { FakeClock } from "../support/fake-clock.js";
import {
  acceptAnswersAgain,
  refuseAnswers,
  storeThatCannotKeepAnswers,
} from "../support/answers-not-kept.js";
import { startApi, type ApiHarness } from "./harness.js";

describe.each(["sqlite", "postgres"] as const)("on %s", (kind) => {
  let api: ApiHarness<SqliteStore | PostgresStore>;
  let app: FastifyInstance | null = null;
  let url: string;
  let appId: string;
  const clock = new FakeClock(Date.now());
  beforeEach(async () => {
    api = await startApi({}, clock, kind);
    appId = (await api.svix.application.create({ name: "acme" })).id;
    await api.svix.endpoint.create(appId, { url: "https://example.com/hook" });
  });
  afterEach(async () => {
    await app?.close();
    app = null;
    await api.close();
  });

  const aProcessOver = async (store: Store) => {
    app = buildApi({ ...api.deps, store });
    url = (await app.listen({ host: "127.0.0.1", port: 0 })).replace("localhost", "127.0.0.1");
  };
  const post = () =>
    fetch(`${url}/api/v1/app/${appId}/msg`, {
      method: "POST",
      headers: {
        authorization: `Bearer ${api.token}`,
        "content-type": "application/json",
        "idempotency-key": "charge-1",
      },
      body: JSON.stringify({ eventType: "charge.created", payload: { amount: 5 } }),
    });
  const messages = async () => (await api.svix.message.list(appId)).data;

  it("replays the answer to the retry, then and past the key's lock, and stores one message", async () => {
    await aProcessOver(storeThatCannotKeepAnswers(api.store));
    const first = await post();
    expect(first.status).toBe(202);
    const answered = await first.text();

    const retry = await post();
    expect(retry.status).toBe(202);
    expect(retry.headers.get("idempotent-replayed")).toBe("true");
    expect(await retry.text()).toBe(answered);

    clock.advance(61_000);
    const later = await post();
    expect(later.status).toBe(202);
    expect(later.headers.get("idempotent-replayed")).toBe("true");
    expect(await later.text()).toBe(answered);
    expect(await messages()).toHaveLength(1);
  });

  it("an answer the database refuses fails the post whole, and the retry makes the message once", async () => {
    await aProcessOver(api.store);
    await refuseAnswers(api.db);
    const refused = await post();
    expect(refused.status).toBe(500);
    expect(await messages()).toEqual([]);

    await acceptAnswersAgain(api.db);
    const retry = await post();
    expect(retry.status).toBe(202);
    expect(retry.headers.get("idempotent-replayed")).toBeNull();
    const again = await post();
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    expect(await again.text()).toBe(await retry.text());
    expect(await messages()).toHaveLength(1);
  });

  it("through the SDK, a retry with the key gets the first message", async () => {
    await aProcessOver(storeThatCannotKeepAnswers(api.store));
    const svix = new Svix(api.token, { serverUrl: url });
    const msg = { eventType: "charge.created", payload: { amount: 7 } };
    const first = await svix.message.create(appId, msg, { idempotencyKey: "charge-2" });
    clock.advance(61_000);
    const again = await svix.message.create(appId, msg, { idempotencyKey: "charge-2" });
    expect(again.id).toBe(first.id);
    expect((await messages()).map((m) => m.id)).toEqual([first.id]);
  });
});
