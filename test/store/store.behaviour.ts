/**
 * The behavioural suite every storage adapter must pass. An adapter's test file calls
 * {@link storeBehaviour} with a factory for fresh, empty stores; each test gets its own.
 */
import { afterEach, beforeEach, describe } from "vitest";
import type { Store } from "../../src/store/port.js";
import { apiTokenBehaviour } from "./behaviour/api-tokens.js";
import { catalogueBehaviour } from "./behaviour/catalogue.js";
import { circuitBehaviour } from "./behaviour/circuits.js";
import { dashboardBehaviour } from "./behaviour/dashboard.js";
import { claimingBehaviour } from "./behaviour/claiming.js";
import { coordinationBehaviour } from "./behaviour/coordination.js";
import { deadLetterBehaviour } from "./behaviour/dlq.js";
import { pruningBehaviour } from "./behaviour/pruning.js";
import { replayJobBehaviour } from "./behaviour/replay-jobs.js";
import type { MakeStore, StoreUnderTest } from "./behaviour/fixtures.js";
import { historyBehaviour } from "./behaviour/history.js";
import { idempotencyBehaviour } from "./behaviour/idempotency.js";
import { lifecycleBehaviour } from "./behaviour/lifecycle.js";
import { messageBehaviour } from "./behaviour/messages.js";
import { observabilityBehaviour } from "./behaviour/observability.js";
import { outcomeBehaviour } from "./behaviour/outcomes.js";
import { sealingBehaviour } from "./behaviour/sealing.js";

/** Registers `describe(name, …)` with the whole store behaviour, one fresh store per test. */
export function storeBehaviour(
  name: string,
  makeStore: MakeStore,
  options: { shared?: boolean } = {},
): void {
  describe(name, () => {
    let current: { store: Store; cleanup: () => Promise<void> } | null = null;
    const t: StoreUnderTest = {
      get store(): Store {
        if (!current) throw new Error("the store is only available inside a test");
        return current.store;
      },
      async withLimits(limits) {
        if (!current) throw new Error("the store is only available inside a test");
        await current.cleanup();
        current = await makeStore(limits);
        return current.store;
      },
      async withCipher(cipher) {
        if (!current) throw new Error("the store is only available inside a test");
        await current.cleanup();
        current = await makeStore(undefined, cipher);
        return current.store;
      },
    };

    beforeEach(async () => {
      current = await makeStore();
    });

    afterEach(async () => {
      const done = current;
      current = null;
      await done?.cleanup();
    });

    catalogueBehaviour(t);
    idempotencyBehaviour(t);
    messageBehaviour(t);
    claimingBehaviour(t);
    outcomeBehaviour(t);
    historyBehaviour(t);
    circuitBehaviour(t);
    lifecycleBehaviour(t);
    deadLetterBehaviour(t);
    replayJobBehaviour(t);
    pruningBehaviour(t);
    apiTokenBehaviour(t);
    sealingBehaviour(t);
    dashboardBehaviour(t);
    // Only stores several processes may share have workers to coordinate.
    if (options.shared) coordinationBehaviour(t);
    observabilityBehaviour(t);
  });
}
