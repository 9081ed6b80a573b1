/**
 * A delivery whose endpoint no longer exists (on PostgreSQL, a message accepted while the
 * endpoint was being deleted can write one: see the store test of that race) is claimed, found
 * to have no endpoint and dropped. Left in the store it would stay claimed, be claimed and
 * dropped again on every start, and keep its message from retention: the engine has the store
 * clear what is left of the endpoint. The row is written here as that race leaves it.
 */
import Database from "better-sqlite3";
import { afterEach, expect, it, vi } from "vitest";
import { settle, startEngine, type EngineHarness } from "../support/engine.js";
import { GatedReceiver } from "../support/gated-receiver.js";

let h: EngineHarness;
let rx: GatedReceiver;
afterEach(async () => {
  await h.close();
  await rx.close();
});

it("removes a claimed delivery whose endpoint is gone, and sends the others", async () => {
  h = await startEngine();
  rx = await GatedReceiver.start();
  rx.release();
  const gone = await h.addEndpoint(rx.url());
  await h.addEndpoint(rx.url());
  await settle();
  const raw = new Database(h.dbPath);
  try {
    await h.post({ n: 1 }, { wake: false });
    // The endpoint's row goes, and its delivery stays: what the race leaves.
    raw.prepare("DELETE FROM endpoints WHERE id = ?").run(gone.id);
    h.engine.wake();
    await rx.arrived(1);
    const left = () =>
      raw.prepare("SELECT count(*) AS n FROM deliveries WHERE endpoint_id = ?").get(gone.id) as {
        n: number;
      };
    await vi.waitFor(() => expect(left().n).toBe(0), { timeout: 20_000 });
    expect(rx.ids).toHaveLength(1);
  } finally {
    raw.close();
  }
});
