/**
 * A full endpoint's backlog sits in the due order the engine scans. Stepping over it row by row
 * costs a window of the walk per scan, so a backlog of a million rows held the main thread for
 * over half a second at start-up. Once one window runs out that way, the engine looks for the
 * rest of what is due endpoint by endpoint, at a cost that does not grow with the backlog.
 */
import { afterEach, describe, expect, it, vi } from "vitest";
import { SCAN_WINDOW } from "../../src/store/sqlite/deliveries.js";
import { reached, startEngine, type EngineHarness } from "../support/engine.js";
import { Receiver } from "../support/receiver.js";

/**
 * Counts, from now on, the engine's scans that walked a whole window and claimed nothing, and its
 * looks by endpoint.
 */
function countCalls(h: EngineHarness): { readonly emptyWindows: number; readonly looks: number } {
  const scans = vi.spyOn(h.store, "scanDue");
  const looks = vi.spyOn(h.store, "dueEndpoints");
  return {
    get emptyWindows() {
      return scans.mock.settledResults.filter(
        (r) => r.type === "fulfilled" && r.value.claimed.length === 0 && r.value.reached !== null,
      ).length;
    },
    get looks() {
      return looks.mock.calls.length;
    },
  };
}

describe("a full endpoint's long backlog", () => {
  let h: EngineHarness;
  let rx: Receiver;
  afterEach(async () => {
    await h.close();
    await rx.close();
  });

  /**
   * An endpoint "/full" that takes one request at a time and answers slowly (so it stays full
   * while a test runs), with `rows` deliveries due at `t0`, written without telling the engine;
   * and a second endpoint at `path` for the event type `other`.
   */
  async function fullBeside(rows: number, path: string, policy?: { concurrencyLimit: number }) {
    h = await startEngine();
    rx = await Receiver.start((req) =>
      req.path === "/full" ? { status: 200, delayMs: 200 } : { status: 200 },
    );
    await h.addEndpoint(rx.url("/full"), { concurrencyLimit: 1 }, { filterTypes: ["bulk"] });
    await h.addEndpoint(rx.url(path), policy, { filterTypes: ["other"] });
    const t0 = Date.now() - 60_000;
    // Posted together, so the store commits them a turn's worth at a time: ten thousand commits
    // one after another outlasted the test's time on a loaded CI machine.
    const posts: Promise<string>[] = [];
    for (let i = 0; i < rows; i++) {
      posts.push(h.post({ i }, { eventType: "bulk", dueAt: t0, wake: false }));
    }
    await Promise.all(posts);
    return t0;
  }

  it("is looked past by endpoint, to another endpoint's work due after it", async () => {
    // More than two windows of the walk, all due before the other endpoint's message.
    const t0 = await fullBeside(Math.floor(2.5 * SCAN_WINDOW), "/other");
    const other = await h.post({ n: "other" }, { eventType: "other", dueAt: t0 + 1, wake: false });

    const counter = countCalls(h);
    h.engine.wake();
    await h.waitFor(reached(other, "succeeded"), 10_000);
    expect(rx.on("/other")).toHaveLength(1);
    // The first scan claims a batch of the backlog and fills the endpoint; the next walks one
    // window over the rest and stops; a look by endpoint finds the other one. Row by row, it
    // took three windows.
    expect(counter.looks).toBeGreaterThanOrEqual(1);
    expect(counter.emptyWindows).toBe(1);
    await rx.waitFor(1, "/full");
  });

  it("keeps refilling an endpoint it found, after the look, until its backlog is sent", async () => {
    const t0 = await fullBeside(2 * SCAN_WINDOW, "/found", { concurrencyLimit: 5 });
    // More than one claim's batch (256): the endpoint fills up before its backlog is all taken,
    // and the rest, behind the cursor the look moved on, is refilled through its own index.
    const found: string[] = [];
    for (let i = 0; i < 600; i++) {
      found.push(await h.post({ i }, { eventType: "other", dueAt: t0 + 1, wake: false }));
    }
    const counter = countCalls(h);
    h.engine.wake();
    await rx.waitFor(600, "/found", 15_000);
    expect(counter.looks).toBeGreaterThanOrEqual(1);
    for (const id of found) await h.waitFor(reached(id, "succeeded"));
  });

  it("does not move its cursor past work announced while it looked", async () => {
    await fullBeside(2 * SCAN_WINDOW, "/other");
    // Accepted and announced after the look has read the store, due before the time the look
    // moves the cursor to: the look did not see it, so only the announcement can find it.
    let late: string | null = null;
    const dueEndpoints = h.store.dueEndpoints.bind(h.store);
    h.store.dueEndpoints = async (req) => {
      const found = await dueEndpoints(req);
      if (late === null) {
        const dueAt = req.now - 1_000;
        late = await h.post({ n: "late" }, { eventType: "other", dueAt, wake: false });
        h.engine.wake(dueAt);
      }
      return found;
    };
    h.engine.wake();
    await vi.waitFor(() => expect(late).not.toBeNull(), { timeout: 10_000 });
    // Well before the minute's rescan, which would find it anyway.
    await h.waitFor(reached(late!, "succeeded"), 10_000);
  });
});
