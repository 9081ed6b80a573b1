/**
 * `hookline dlq replay` of a record whose endpoint is disabled while the replay waits says
 * `withdrawn`, with why no request went out, not `failed`: the receiver was never asked. Nothing
 * was delivered either, so it exits 2, as a failed replay does, and a script does not go on as if
 * the record were resolved.
 */
import { afterEach, describe, expect, it } from "vitest";
import { dlqCommand } from "../../src/cli/dlq.js";
import { anEndpoint, deadLetters, PATIENT_BREAKER, post, type RecordOut } from "../support/dlq.js";
import { holdingReceiver, untilRecordIs } from "../support/held-replay.js";
import { startHookline } from "../support/hookline.js";

describe("hookline dlq replay, the endpoint disabled while the replay waited", () => {
  const cleanups: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const c of cleanups.splice(0).reverse()) await c();
  });

  it("prints withdrawn with why, and exits 2", async () => {
    const h = await startHookline({ overrides: { breaker: PATIENT_BREAKER } });
    cleanups.push(() => h.stop());
    const rx = await holdingReceiver();
    cleanups.push(() => rx.close());
    // One request at a time: the replay waits in the engine behind the held one.
    const ep = await anEndpoint(h, rx.url, { retry: { preset: "manual" }, concurrencyLimit: 1 });
    const record = (await deadLetters(h, ep, 1))[0]!;
    rx.hold();
    await post(h, ep.appId, { after: "the outage" });
    await rx.arrived();

    let out = "";
    const codes: number[] = [];
    const cmd = dlqCommand(
      { url: h.url, token: h.token },
      {
        out: { write: (s: string) => (out += s) },
        now: () => Date.now(),
        sleep: async () => {},
        setExitCode: (c) => codes.push(c),
      },
    );
    for (const c of [cmd, ...cmd.commands]) c.exitOverride();
    const ran = cmd.parseAsync(["replay", record.id], { from: "user" });
    await untilRecordIs(
      async () => (await h.api<RecordOut>("GET", `/api/v1/dlq/${record.id}`)).body.state,
      "replaying",
    );
    // Answered 410, the held request disables the endpoint: the replay behind it ends unsent.
    rx.answerHeld(410);
    await ran;

    expect(out.split("\n")[0]).toBe(
      "withdrawn: no request was sent: endpoint disabled: the receiver answered 410 Gone",
    );
    expect(out).toContain(`${record.id} is open`);
    expect(codes).toEqual([2]);
  });
});
