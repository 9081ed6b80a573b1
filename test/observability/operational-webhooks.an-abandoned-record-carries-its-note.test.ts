/**
 * `dlq.record_abandoned` says why. Abandoning a record by hand takes a note (the console asks for
 * one, the API requires it), yet the operational webhook carried only who and "abandoned by …":
 * on-call tooling reading it could not tell why the record was given up. It now carries the note
 * as the record's history shows it, and null for a record hookline abandoned by itself after too
 * many failed replays, whose reason is in `detail`.
 */
import { Webhook } from "standardwebhooks";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { anEndpoint, deadLetters } from "../support/dlq.js";
import { startHookline, type TestHookline } from "../support/hookline.js";
import { Receiver } from "../support/receiver.js";

interface OpEvent {
  type: string;
  data: Record<string, unknown>;
}
interface HistoryEntry {
  action: string;
  actor: string;
  note: string | null;
}

let h: TestHookline;
let ops: Receiver;
let rx: Receiver;
let secret = "";

beforeAll(async () => {
  h = await startHookline({ env: { HOOKLINE_DLQ_MAX_REPLAYS: "1" } });
  ops = await Receiver.start(() => ({ status: 204 }));
  rx = await Receiver.start(() => ({ status: 503 }));
  const ep = await h.svix.operationalWebhookEndpoint.create({
    url: ops.url("/ops"),
    filterTypes: ["dlq.record_abandoned"],
  });
  secret = (await h.svix.operationalWebhookEndpoint.getSecret(ep.id)).key;
});
afterAll(async () => {
  await h.stop();
  await ops.close();
  await rx.close();
});

/** The abandonment of record `dlqId` as the operator's receiver got it, signature verified. */
async function abandonmentOf(dlqId: string): Promise<OpEvent> {
  const wh = new Webhook(secret);
  for (let n = 1; ; n++) {
    await ops.waitFor(n, "/ops");
    const found = ops
      .on("/ops")
      .map((r) => wh.verify(r.body, r.headers) as OpEvent)
      .find((e) => e.type === "dlq.record_abandoned" && e.data.dlqId === dlqId);
    if (found) return found;
  }
}

/** The record's history entry for its abandonment, as GET /api/v1/dlq/{id} shows it. */
async function abandonedEntry(dlqId: string): Promise<HistoryEntry> {
  const record = await h.api<{ history: HistoryEntry[] }>("GET", `/api/v1/dlq/${dlqId}`);
  return record.body.history.find((e) => e.action === "abandoned")!;
}

describe("dlq.record_abandoned", () => {
  it("carries the note of the person who abandoned the record, as its history does", async () => {
    const ep = await anEndpoint(h, rx.url("/by-hand"));
    const [record] = await deadLetters(h, ep, 1);
    const note = "customer closed their account; nothing to deliver";
    const done = await h.api("POST", `/api/v1/dlq/${record!.id}/abandon`, { note });
    expect(done.status).toBe(200);

    const event = await abandonmentOf(record!.id);
    expect(event.data).toMatchObject({
      endpointId: ep.endpointId,
      actor: "admin",
      note,
      detail: "abandoned by admin",
    });
    const entry = await abandonedEntry(record!.id);
    expect({ actor: event.data.actor, note: event.data.note }).toEqual({
      actor: entry.actor,
      note: entry.note,
    });
  });

  it("carries a null note when hookline abandoned the record after failed replays", async () => {
    const ep = await anEndpoint(h, rx.url("/by-hookline"));
    const [record] = await deadLetters(h, ep, 1);
    const replay = await h.api<{ record: { state: string } }>(
      "POST",
      `/api/v1/dlq/${record!.id}/replay`,
    );
    expect(replay.body.record.state).toBe("abandoned");

    const event = await abandonmentOf(record!.id);
    expect(event.data).toMatchObject({
      endpointId: ep.endpointId,
      actor: "hookline",
      note: null,
      detail: "abandoned after 1 failed replays in a row",
    });
    expect((await abandonedEntry(record!.id)).note).toBeNull();
  });
});
