/**
 * A request that runs past its key's 60 s lock has lost the key: a repeat may then take it and run.
 * When the slow one ends, what it ends with is not written over the key's new holder: its answer
 * is not kept (a repeat replays the holder's), and its failure does not free the key while the
 * holder still runs (a repeat is told the request is in progress, and does not run a third time).
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { FastifyInstance } from "fastify";
import { buildApi } from "../../src/api/server.js";
import { StoreUnavailableError } from "../../src/errors.js";
import type { Store } from "../../src/store/port.js";
import type { PostgresStore } from "../../src/store/postgres/store.js";
import type { SqliteStore } from "../../src/store/sqlite/store.js";
import { FakeClock } from "../support/fake-clock.js";
import { withOverrides } from "../support/overrides.js";
import { startApi, type ApiHarness } from "./harness.js";

const LOCK_MS = 60_000;

/** Holds the first two creations of an application until the test lets each go (or fail). */
function heldCreations(target: Store) {
  const held: ((failWith?: Error) => void)[] = [];
  const store = withOverrides<Store>(target, {
    createApplication: async (app) => {
      if (held.length < 2) {
        const failure = await new Promise<Error | undefined>((go) => held.push(go));
        if (failure) throw failure;
      }
      return target.createApplication(app);
    },
  });
  return { store, held };
}

async function until(check: () => boolean): Promise<void> {
  while (!check()) await new Promise((r) => setTimeout(r, 5));
}

describe.each(["sqlite", "postgres"] as const)("on %s", (kind) => {
  let api: ApiHarness<SqliteStore | PostgresStore>;
  const clock = new FakeClock(Date.now());
  let app: FastifyInstance;
  let held: ((failWith?: Error) => void)[];
  beforeEach(async () => {
    api = await startApi({}, clock, kind);
    const creations = heldCreations(api.store);
    held = creations.held;
    app = buildApi({ ...api.deps, store: creations.store });
    await app.ready();
  });
  afterEach(async () => {
    await app.close();
    await api.close();
  });

  const create = () =>
    app.inject({
      method: "POST",
      url: "/api/v1/app",
      headers: { authorization: `Bearer ${api.token}`, "idempotency-key": "create-acme" },
      payload: { name: "acme" },
    });

  /** The first request holds the key past its lock; a repeat then takes the key and is held too. */
  async function twoHolders() {
    const slow = create();
    await until(() => held.length === 1);
    clock.advance(LOCK_MS);
    const holder = create();
    await until(() => held.length === 2);
    return { slow, holder };
  }

  it("the slow request's answer is not kept: a repeat replays the holder's", async () => {
    const { slow, holder } = await twoHolders();
    held[1]!();
    const kept = await holder;
    expect(kept.statusCode).toBe(201);
    held[0]!();
    const late = await slow;
    expect(late.statusCode).toBe(201);

    const repeat = await create();
    expect(repeat.headers["idempotent-replayed"]).toBe("true");
    expect(repeat.json<{ id: string }>().id).toBe(kept.json<{ id: string }>().id);
  });

  it("the slow request's failure leaves the key held while its holder runs", async () => {
    const { slow, holder } = await twoHolders();
    held[0]!(new StoreUnavailableError("the database went away"));
    expect((await slow).statusCode).toBe(503);

    const repeat = await create();
    expect(repeat.statusCode).toBe(409);
    expect(repeat.json()).toMatchObject({ code: "idempotency_in_progress" });

    held[1]!();
    expect((await holder).statusCode).toBe(201);
    expect((await api.svix.application.list()).data).toHaveLength(1);
  });
});
