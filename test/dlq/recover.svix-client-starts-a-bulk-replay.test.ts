import { afterEach, describe, expect, it } from "vitest";
import {
  anEndpoint,
  deadLetters,
  PATIENT_BREAKER,
  untilJob,
  type RecordOut,
} from "../support/dlq.js";
import { startHookline, type TestHookline } from "../support/hookline.js";
import { Receiver } from "../support/receiver.js";

describe("the Svix recover call", () => {
  let h: TestHookline;
  let rx: Receiver;
  afterEach(async () => {
    await h.stop();
    await rx.close();
  });

  it("starts a bulk replay of the endpoint's records since the time given, answered as RecoverOut", async () => {
    h = await startHookline({ overrides: { breaker: PATIENT_BREAKER } });
    rx = await Receiver.start(() => ({ status: 503 }));
    const ep = await anEndpoint(h, rx.url("/hooks"));
    const before = await deadLetters(h, ep, 2);
    // Times are in milliseconds: start the window strictly after the earlier records.
    const since = new Date(
      Math.max(...before.map((r) => Date.parse(String(r.deadLetteredAt)))) + 1,
    );
    while (Date.now() <= since.getTime()) await new Promise((r) => setImmediate(r));
    const after = await deadLetters(h, ep, 3);
    rx.behave(() => ({ status: 200 }));

    const out = await h.svix.endpoint.recover(ep.appId, ep.endpointId, { since });
    expect(out).toEqual({
      id: expect.stringMatching(/^job_/),
      status: "running",
      task: "endpoint.recover",
      updatedAt: expect.any(Date),
    });
    const job = await untilJob(h, out.id, (j) => j.state === "completed");
    expect(job).toMatchObject({ task: "endpoint.recover", progress: { total: 3, succeeded: 3 } });

    const states = async (records: RecordOut[]) => {
      const all = await h.api<{ data: RecordOut[] }>(
        "GET",
        `/api/v1/dlq?endpoint_id=${ep.endpointId}&limit=100`,
      );
      const byId = new Map(all.body.data.map((r) => [r.id, r.state]));
      return records.map((r) => byId.get(r.id));
    };
    expect(await states(after)).toEqual(["resolved", "resolved", "resolved"]);
    expect(await states(before)).toEqual(["open", "open"]);
  });
});
