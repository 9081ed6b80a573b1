import { defineConfig } from "vitest/config";
import { SlowFirst } from "./test/support/slow-first.js";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: "forks",
    // Each fork runs file after file without a fresh module graph. Every test builds its own
    // hookline (store, server, engine), and what hookline keeps at module level is caches of pure
    // functions (signing keys, parsed URLs) and the id generator, so nothing leaks between files;
    // isolation cost each file importing hookline again: the suite took 12 minutes with it and 9
    // without on a 2-core VM, every test passing both ways.
    isolate: false,
    // Two files at a time. vitest's default is one fewer than the cores, which on the 2-core
    // machines we run on meant one file after another, while most files spend their time waiting
    // on sockets, timers, child processes and the browser: the whole suite took 15 minutes that way
    // and 10 with two at once. Tests must hold under that load (no timed assertions), which is the
    // point of running them beside each other. Three took the dashboard's files from 264 s to 188 s
    // on a fast host (session 52), but a whole run at three on a slow one (session 53, other work
    // beside it) took 1,544 s, about what two take on such hosts: there the suite is bound by CPU
    // (every built-CLI test starts Node processes that load hookline), and a third file adds load.
    maxWorkers: 2,
    sequence: { sequencer: SlowFirst },
    // expect.poll waits for a state, and the suite runs two files at once on a 2-core machine: its
    // default of one second fails a right answer that came late. Waiting longer costs nothing when
    // the answer is quick; a wrong one still fails, later.
    expect: { poll: { timeout: 10_000 } },
  },
});
