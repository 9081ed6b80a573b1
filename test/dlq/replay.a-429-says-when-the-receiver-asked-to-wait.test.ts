/**
 * A replay is never retried, so the Retry-After of a receiver answering it 429 delays nothing:
 * the replay's answer (and the CLI's line) tells the operator when the receiver asked to be
 * tried again, and the record's history keeps it ("asked for no wait", as the dashboard says,
 * where it asked for none). Without a
 * Retry-After, `detail` stays null.
 */
import { afterEach, describe, expect, it } from "vitest";
import { runCli } from "../support/built-cli.js";
import { anEndpoint, deadLetters, PATIENT_BREAKER } from "../support/dlq.js";
import { startHookline, startHooklineOn, type TestHookline } from "../support/hookline.js";
import { Receiver } from "../support/receiver.js";

type ReplayAnswer = { result: string; detail: string | null; attempt: { status: number } | null };

describe("a single replay answered 429", () => {
  const cleanups: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const c of cleanups.splice(0).reverse()) await c();
  });

  async function aRecord(h: TestHookline) {
    const rx = await Receiver.start(() => ({ status: 503 }));
    cleanups.push(() => rx.close());
    const ep = await anEndpoint(h, rx.url("/hooks"));
    const [record] = await deadLetters(h, ep, 1);
    return { rx, record: record! };
  }

  it.each(["sqlite", "postgres"] as const)(
    "on %s, says how long the receiver asked to wait, in the answer and the history",
    async (kind) => {
      const h = await startHooklineOn(kind);
      cleanups.push(() => h.stop());
      const { rx, record } = await aRecord(h);
      rx.behave(() => ({ status: 429, headers: { "retry-after": "30" } }));

      const res = await h.api<ReplayAnswer>("POST", `/api/v1/dlq/${record.id}/replay`, {});
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({
        result: "failed",
        attempt: { status: 429 },
        detail: "the receiver asked to wait 30 s (Retry-After)",
      });
      const whole = await h.api<{ history: { action: string; result: string }[] }>(
        "GET",
        `/api/v1/dlq/${record.id}`,
      );
      expect(whole.body.history.at(-1)?.result).toMatch(
        /^failed: HTTP 429 in \d+ ms; the receiver asked to wait 30 s \(Retry-After\)$/,
      );
    },
  );

  it("without a Retry-After, says nothing more", async () => {
    const h = await startHookline({ overrides: { breaker: PATIENT_BREAKER } });
    cleanups.push(() => h.stop());
    const { rx, record } = await aRecord(h);
    rx.behave(() => ({ status: 429 }));

    const res = await h.api<ReplayAnswer>("POST", `/api/v1/dlq/${record.id}/replay`, {});
    expect(res.body).toMatchObject({ result: "failed", attempt: { status: 429 }, detail: null });
  });

  it("says a receiver asking for no wait asked for no wait, as the dashboard does", async () => {
    // `Retry-After: 0`, or a date already past, read "asked to wait 0 ms".
    const h = await startHookline({ overrides: { breaker: PATIENT_BREAKER } });
    cleanups.push(() => h.stop());
    const { rx, record } = await aRecord(h);
    rx.behave(() => ({ status: 429, headers: { "retry-after": "0" } }));

    const res = await h.api<ReplayAnswer>("POST", `/api/v1/dlq/${record.id}/replay`, {});
    expect(res.body).toMatchObject({
      result: "failed",
      detail: "the receiver asked for no wait (Retry-After)",
    });
  });

  it("hookline dlq replay prints it after the answer", async () => {
    const h = await startHookline({ overrides: { breaker: PATIENT_BREAKER } });
    cleanups.push(() => h.stop());
    const { rx, record } = await aRecord(h);
    rx.behave(() => ({ status: 429, headers: { "retry-after": "120" } }));

    const run = await runCli(["dlq", "replay", record.id], {
      HOOKLINE_URL: h.url,
      HOOKLINE_TOKEN: h.token,
    });
    expect(run.out, run.err).toMatch(
      /^failed: HTTP 429 in \d+ ms; the receiver asked to wait 2 min \(Retry-After\)\n/,
    );
  });
});
