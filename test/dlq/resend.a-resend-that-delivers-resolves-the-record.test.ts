/**
 * A message given up on and then resent by hand, successfully, was still listed as an open
 * dead-letter record: a later bulk replay (or `endpoint.recover`) sent it a third time, and the
 * dead-letter age alerts went on counting it. The resend's success now resolves the record, by
 * `hookline`, its history naming the resend's delivery; a bulk replay then sends nothing.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { anEndpoint, deadLetters, untilJob, type RecordOut } from "../support/dlq.js";
import { startHookline, type TestHookline } from "../support/hookline.js";
import { Receiver } from "../support/receiver.js";

let h: TestHookline;
let rx: Receiver;
let healthy = false;
beforeAll(async () => {
  h = await startHookline();
  rx = await Receiver.start(() => ({ status: healthy ? 200 : 503 }));
});
afterAll(async () => {
  await h.stop();
  await rx.close();
});

describe("a resend that delivers a dead-lettered message", () => {
  it("resolves its record, and a bulk replay then sends nothing", async () => {
    const ep = await anEndpoint(h, rx.url("/hook"));
    const [record] = await deadLetters(h, ep, 2);
    healthy = true;
    const before = rx.on("/hook").length;
    await h.svix.messageAttempt.resend(ep.appId, record!.messageId, ep.endpointId);
    await h.waitFor(
      (e) =>
        e.type === "dead-letter" &&
        e.change.kind === "resolved" &&
        e.change.deadLetterId === record!.id,
    );
    expect(rx.on("/hook").length).toBe(before + 1);

    const got = await h.api<
      RecordOut & { history: { action: string; actor: string; result: string }[] }
    >("GET", `/api/v1/dlq/${record!.id}`);
    expect(got.body.state).toBe("resolved");
    expect(got.body.history.at(-1)).toMatchObject({ action: "resolved", actor: "hookline" });
    expect(got.body.history.at(-1)!.result).toContain("a resend delivered the message");

    // The endpoint's bulk replay takes the other record only.
    const job = await h.api<{ id: string }>("POST", "/api/v1/dlq/replay", {
      endpointId: ep.endpointId,
    });
    expect(job.status).toBe(202);
    const done = await untilJob(h, job.body.id, (j) => j.state === "completed");
    expect(done.progress).toMatchObject({ total: 1, succeeded: 1 });
    const bodies = rx
      .on("/hook")
      .slice(before)
      .map((r) => JSON.parse(r.body.toString()) as { n: number });
    expect(bodies.map((b) => b.n)).toEqual([0, 1]);
  });
});
