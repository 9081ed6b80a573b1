/**
 * hookline runs on Node.js 20. A package deep in the tree that declares a newer Node (fastify's
 * injector once pulled in a cookie parser asking for Node 22) installs with only a warning and
 * may break at any call; the lock file records every package's declared engines, so this reads
 * them all and names any the running Node does not satisfy.
 */
import { readFileSync } from "node:fs";
import semver from "semver";
import { describe, expect, it } from "vitest";

interface LockedPackage {
  version?: string;
  engines?: { node?: string } | string[];
}

const lock = JSON.parse(readFileSync(new URL("../package-lock.json", import.meta.url), "utf8")) as {
  packages: Record<string, LockedPackage>;
};

describe("the locked dependencies", () => {
  it("all accept the Node.js version running the tests", () => {
    const refused: string[] = [];
    for (const [path, pkg] of Object.entries(lock.packages)) {
      const range = Array.isArray(pkg.engines) ? undefined : pkg.engines?.node;
      if (!path || !range) continue;
      if (!semver.satisfies(process.version, range))
        refused.push(`${path}@${pkg.version}: node ${range}`);
    }
    expect(refused).toEqual([]);
  });
});
