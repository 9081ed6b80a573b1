import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  anEndpoint,
  deadLetters,
  untilJob,
  type RecordOut,
  type TestEndpoint,
} from "../support/dlq.js";
import { startHookline, type TestHookline } from "../support/hookline.js";
import { Receiver } from "../support/receiver.js";

type Answer = { code?: string; detail?: unknown; result?: string; record?: RecordOut };

describe("what a record's state does not allow is refused with 409 and the reason", () => {
  let h: TestHookline;
  let rx: Receiver;
  let ep: TestEndpoint;
  let records: RecordOut[];
  beforeEach(async () => {
    h = await startHookline();
    rx = await Receiver.start(() => ({ status: 503 }));
    ep = await anEndpoint(h, rx.url("/hooks"));
    records = await deadLetters(h, ep, 2);
  });
  afterEach(async () => {
    await h.stop();
    await rx.close();
  });

  const replay = (id: string, body?: unknown) =>
    h.api<Answer>("POST", `/api/v1/dlq/${id}/replay`, body);

  it("a second replay while the first is out is refused; only one request is sent", async () => {
    rx.behave(() => ({ status: 200, delayMs: 300 }));
    const [a, b] = await Promise.all([replay(records[0]!.id), replay(records[0]!.id)]);
    const statuses = [a.status, b.status].sort();
    expect(statuses).toEqual([200, 409]);
    const refused = a.status === 409 ? a : b;
    expect(refused.body).toEqual({
      code: "conflict",
      detail: `record ${records[0]!.id} is replaying: a replay of it is already in progress; wait for its outcome`,
    });
    expect(rx.requests).toHaveLength(3);
  });

  it("a failed replay answers 200 with the failure and reopens the record", async () => {
    const res = await replay(records[0]!.id);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      result: "failed",
      record: { state: "open", replayCount: 1, failedReplays: 1 },
    });
  });

  it("abandoned records cannot be replayed or abandoned again; resolve and abandon need a note", async () => {
    const id = records[0]!.id;
    expect((await h.api("POST", `/api/v1/dlq/${id}/abandon`, {})).status).toBe(422);
    expect((await h.api("POST", `/api/v1/dlq/${id}/abandon`, { note: "  " })).status).toBe(422);
    const abandoned = await h.api<RecordOut>("POST", `/api/v1/dlq/${id}/abandon`, {
      note: "customer churned",
    });
    expect(abandoned.status).toBe(200);
    expect(abandoned.body.state).toBe("abandoned");

    const again = await replay(id);
    expect(again.status).toBe(409);
    expect(again.body.detail).toBe(
      `record ${id} is abandoned: only open or resolved records can be replayed`,
    );
    const twice = await h.api<Answer>("POST", `/api/v1/dlq/${id}/abandon`, { note: "again" });
    expect(twice.status).toBe(409);
    expect(twice.body.detail).toBe(`record ${id} is abandoned: only open records can be abandoned`);

    const resolved = await h.api<RecordOut>("POST", `/api/v1/dlq/${id}/resolve`, {
      note: "sent by hand after all",
    });
    expect(resolved.body.state).toBe("resolved");
    const resolvedAgain = await h.api<Answer>("POST", `/api/v1/dlq/${id}/resolve`, { note: "x" });
    expect(resolvedAgain.status).toBe(409);
    expect(resolvedAgain.body.detail).toBe(
      `record ${id} is resolved: only open or abandoned records can be resolved`,
    );
    expect(rx.requests).toHaveLength(2);
  });

  it("a record of a disabled endpoint is not replayed until the endpoint is enabled", async () => {
    const path = `/api/v1/app/${ep.appId}/endpoint/${ep.endpointId}`;
    expect((await h.api("PATCH", path, { disabled: true })).status).toBe(200);
    const refused = await replay(records[1]!.id);
    expect(refused.status).toBe(409);
    expect(refused.body.detail).toMatch(/is disabled; enable it before replaying$/);
    expect((await h.api("PATCH", path, { disabled: false })).status).toBe(200);
    rx.behave(() => ({ status: 200 }));
    expect((await replay(records[1]!.id)).body.result).toBe("succeeded");
  });

  it("unknown records and jobs are 404; a finished job cannot be cancelled", async () => {
    const missing = await replay("dlq_00000000000000000000000000");
    expect(missing.status).toBe(404);
    expect(missing.body.code).toBe("not_found");
    expect((await h.api("GET", "/api/v1/dlq/dlq_00000000000000000000000000")).status).toBe(404);
    expect((await h.api("GET", "/api/v1/dlq/replay/job_nope")).status).toBe(404);

    rx.behave(() => ({ status: 200 }));
    const job = await h.api<{ id: string }>("POST", "/api/v1/dlq/replay", {
      ids: [records[0]!.id],
      canarySize: 0,
    });
    expect(job.status).toBe(202);
    await untilJob(h, job.body.id, (j) => j.state === "completed");
    const cancel = await h.api<Answer>("POST", `/api/v1/dlq/replay/${job.body.id}/cancel`);
    expect(cancel.status).toBe(409);
    expect(cancel.body.detail).toBe(
      `replay job ${job.body.id} is completed; only a scheduled or running job can be cancelled`,
    );
  });

  it("a bulk replay must say what to replay", async () => {
    const none = await h.api<Answer>("POST", "/api/v1/dlq/replay", {});
    expect(none.status).toBe(422);
    const mixed = await h.api<Answer>("POST", "/api/v1/dlq/replay", {
      ids: [records[0]!.id],
      endpointId: ep.endpointId,
    });
    expect(mixed.status).toBe(422);
    expect(JSON.stringify(mixed.body.detail)).toContain("ids cannot be combined");
  });
});
