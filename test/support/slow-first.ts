/**
 * The order vitest starts test files in: the slowest known ones first, then as vitest orders the
 * rest. On a fresh clone vitest knows no file's duration and starts the largest files first, and
 * the slowest here are small ones (a behaviour suite's file imports the shared suite, a soak is a
 * loop): the PostgreSQL store's suite, 82 s, started last and ran alone for 72 s at the end of a
 * 26-minute run (session 54). Starting them first lets the many short files fill in beside them.
 */
import { BaseSequencer, type TestSpecification } from "vitest/node";

/**
 * Files that took 25 s or more in a whole run on a slow host, slowest first, but each soak that
 * runs hookline as processes beside one that runs in the test's own (two soaks of processes side
 * by side took one fleet worker more than 20 s to start).
 */
const SLOWEST = [
  "test/process/kill9.random-kills-under-load-lose-nothing.test.ts",
  "test/api/fuzz.every-route-answers-4xx-never-500.test.ts",
  "test/process/kill9.a-key-rotation-killed-anywhere-on-postgres-loses-nothing-and-a-rerun-finishes-it.test.ts",
  "test/store/postgres.behaviour.test.ts",
  "test/process/fleet.workers-share-endpoints-within-limits.test.ts",
  "test/ui/console.a-question-stays-open-while-the-page-updates.test.ts",
  "test/process/fleet.workers-killed-at-random-under-load-lose-nothing.test.ts",
  "test/ui/portal.a-retry-its-circuit-holds-past-its-window-says-it-will-be-given-up.test.ts",
  "test/process/kill9.a-key-rotation-killed-anywhere-on-sqlite-loses-nothing-and-a-rerun-finishes-it.test.ts",
  "test/store/postgres.waits-are-bounded-except-migrations.test.ts",
  "test/cli/store.copy-refuses-a-role-that-cannot-make-the-schema.test.ts",
  "test/store/sqlite.behaviour.test.ts",
  "test/cli/serve.makes-its-data-dir-private.test.ts",
];

export class SlowFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const rank = (f: TestSpecification) => {
      const i = SLOWEST.findIndex((path) => f.moduleId.endsWith(path));
      return i === -1 ? SLOWEST.length : i;
    };
    // Array.prototype.sort is stable: the rest keep vitest's order.
    return (await super.sort(files)).sort((a, b) => rank(a) - rank(b));
  }
}
