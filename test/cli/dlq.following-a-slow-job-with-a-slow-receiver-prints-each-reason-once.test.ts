/**
 * A job slower than one replay a second, to a receiver that takes longer to answer than the job's
 * rate leaves between replays. Each replay went out with its result and the next token both to
 * come: the job said "waiting for its rate"; once the token was due, with the replay still out,
 * "waiting for results"; the result came, the next replay went at once, and it said "waiting for
 * its rate" again. `replay-bulk`, which writes the reason each time it changes, printed both
 * lines for every replay. What holds such a job back is its results, replay after replay: the
 * reason now says so until a replay's result comes back before the next token is due.
 */
import { afterAll, beforeAll, expect, it } from "vitest";
import { dlqCommand } from "../../src/cli/dlq.js";
import { anEndpoint, deadLetters, PATIENT_BREAKER, type TestEndpoint } from "../support/dlq.js";
import { startHookline, type TestHookline } from "../support/hookline.js";
import { Receiver } from "../support/receiver.js";

let h: TestHookline;
let rx: Receiver;
let ep: TestEndpoint;

beforeAll(async () => {
  h = await startHookline({ overrides: { breaker: PATIENT_BREAKER } });
  rx = await Receiver.start(() => ({ status: 503, body: "down" }));
  ep = await anEndpoint(h, rx.url("/hook"));
  await deadLetters(h, ep, 3);
  // Back, but slow: each answer takes 3 s, and the job's next token is due 2 s after a replay.
  rx.behave(() => ({ status: 200, body: "ok", delayMs: 3_000 }));
}, 30_000);
afterAll(async () => {
  await h.stop();
  await rx.close();
});

it("replay-bulk prints what holds the job back once, not twice a replay", async () => {
  let out = "";
  const codes: number[] = [];
  const cmd = dlqCommand(
    { url: h.url, token: h.token },
    {
      out: { write: (s: string) => (out += s) },
      now: () => Date.now(),
      sleep: (ms) => new Promise((r) => setTimeout(r, ms)),
      setExitCode: (c) => codes.push(c),
    },
  );
  for (const c of [cmd, ...cmd.commands]) c.exitOverride();
  await cmd.parseAsync(
    [
      "replay-bulk",
      "--endpoint",
      ep.endpointId,
      "--canary",
      "0",
      "--rate",
      "0.5",
      "--interval",
      "100",
    ],
    { from: "user" },
  );

  const lines = out.trimEnd().split("\n");
  expect(lines.at(-1)).toBe("completed: 3 selected: 3 delivered, 0 failed, 0 skipped");
  expect(codes).toEqual([]);
  const reasons = lines.filter((l) => l.startsWith("waiting for"));
  // Each printed once, in the order they came: no going back and forth.
  expect(reasons).toEqual([...new Set(reasons)]);
  expect(reasons).toContain("waiting for results: 1 replays out at once");
  expect(reasons.at(-1)).toBe("waiting for the last 1 results");
}, 60_000);
