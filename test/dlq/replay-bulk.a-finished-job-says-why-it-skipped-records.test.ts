/**
 * A bulk replay skips records it will not send: those of a disabled endpoint, those resolved
 * meanwhile (a record resolved before the job starts is not selected at all). Its end read "4 selected: 1 delivered, 0 failed, 3 skipped", leaving the person to
 * guess which and why; it now says why, the commonest reason first.
 */
import { afterEach, expect, it } from "vitest";
import { anEndpoint, deadLetters, untilJob, type JobOut } from "../support/dlq.js";
import { startHookline, type TestHookline } from "../support/hookline.js";
import { Receiver } from "../support/receiver.js";

let h: TestHookline;
let rx: Receiver;
afterEach(async () => {
  await h.stop();
  await rx.close();
});

it("a job chosen by event type ends saying why it skipped what it skipped", async () => {
  h = await startHookline();
  rx = await Receiver.start(() => ({ status: 503 }));
  const live = await anEndpoint(h, rx.url("/live"));
  const off = await anEndpoint(h, rx.url("/off"));
  const [, resolved] = await deadLetters(h, live, 2, { eventType: "invoice.lost" });
  await deadLetters(h, off, 2, { eventType: "invoice.lost" });
  expect(
    (await h.api("POST", `/api/v1/dlq/${resolved!.id}/resolve`, { note: "sent by hand" })).status,
  ).toBe(200);
  const path = `/api/v1/app/${off.appId}/endpoint/${off.endpointId}`;
  expect((await h.api("PATCH", path, { disabled: true })).status).toBe(200);
  rx.behave(() => ({ status: 200 }));

  const job = await h.api<JobOut>("POST", "/api/v1/dlq/replay", {
    eventType: "invoice.lost",
    canarySize: 0,
  });
  expect(job.status).toBe(202);
  const done = await untilJob(h, job.body.id, (j) => j.state === "completed");
  expect(done.progress).toMatchObject({ total: 3, succeeded: 1, skipped: 2 });
  expect(done.reason).toBe(
    "3 selected: 1 delivered, 0 failed, 2 skipped (skipped 2: the endpoint is disabled)",
  );
});
