/**
 * Operational webhooks end to end: an operator registers an endpoint with the official Svix
 * client; hookline's own events (endpoint disabled, circuit opened and closed, message exhausted
 * (also without a last request), failing and recovered, record abandoned, alert firing and
 * resolved) arrive there, signed with
 * that endpoint's secret. Events about the operational endpoints themselves are never announced.
 */
import { Webhook } from "standardwebhooks";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { OPERATIONAL_APP_UID } from "../../src/observability/system-apps.js";
import { anEndpoint, post } from "../support/dlq.js";
import { deliveryOf, startHookline, type TestHookline } from "../support/hookline.js";
import { Receiver } from "../support/receiver.js";

interface OpEvent {
  type: string;
  timestamp: string;
  data: Record<string, unknown>;
}

const quick = (retries: number) => ({
  retry: { delays: Array<number>(retries).fill(0), jitter: { strategy: "none" as const } },
});

let h: TestHookline;
let ops: Receiver;
let rx: Receiver;
let secret = "";
let opEndpointId = "";
const counts = new Map<string, number>();

beforeAll(async () => {
  h = await startHookline({
    overrides: {
      breaker: { consecutiveFailures: 6, probeDelayMs: 300, halfOpenSuccesses: 1 },
    },
  });
  ops = await Receiver.start(() => ({ status: 204 }));
  rx = await Receiver.start((req) => {
    const n = (counts.get(req.path) ?? 0) + 1;
    counts.set(req.path, n);
    if (req.path === "/gone") return { status: 410 };
    if (req.path === "/failing") return { status: 500 };
    if (req.path === "/wobbly") return { status: n <= 4 ? 500 : 200 };
    if (req.path === "/tripping") return { status: n <= 6 ? 503 : 200 };
    if (req.path === "/stubborn") return { status: n <= 7 ? 503 : 200 };
    return { status: 200 };
  });
  const ep = await h.svix.operationalWebhookEndpoint.create({
    url: ops.url("/ops"),
    description: "on-call",
  });
  opEndpointId = ep.id;
  secret = (await h.svix.operationalWebhookEndpoint.getSecret(ep.id)).key;
});
afterAll(async () => {
  await h.stop();
  await ops.close();
  await rx.close();
});

/** Every operational event received so far, each verified with the endpoint's secret. */
function received(): OpEvent[] {
  const wh = new Webhook(secret);
  return ops.on("/ops").map((r) => wh.verify(r.body, r.headers) as OpEvent);
}

async function waitForEvent(type: string, match: (e: OpEvent) => boolean = () => true) {
  for (let n = 1; ; n++) {
    await ops.waitFor(n, "/ops");
    const found = received().find((e) => e.type === type && match(e));
    if (found) return found;
  }
}

describe("operational webhooks", () => {
  it("manage endpoints through the Svix client, refusing unknown event types", async () => {
    const listed = await h.svix.operationalWebhookEndpoint.list();
    expect(listed.data.map((e) => e.id)).toEqual([opEndpointId]);
    const got = await h.svix.operationalWebhookEndpoint.get(opEndpointId);
    expect(got).toMatchObject({ url: ops.url("/ops"), description: "on-call" });
    const bad = await h.api<{ detail: { loc: unknown[]; type: string }[] }>(
      "POST",
      "/api/v1/operational-webhook/endpoint",
      { url: ops.url("/x"), filterTypes: ["endpoint.disabled", "invoice.paid"] },
    );
    expect(bad.status).toBe(422);
    // Update, rotate the secret and delete, all through the Svix client.
    const spare = await h.svix.operationalWebhookEndpoint.create({
      url: ops.url("/spare"),
      filterTypes: ["alert.firing"],
    });
    const updated = await h.svix.operationalWebhookEndpoint.update(spare.id, {
      url: ops.url("/spare"),
      description: "pager",
      filterTypes: ["alert.firing", "alert.resolved"],
    });
    expect(updated).toMatchObject({
      description: "pager",
      filterTypes: ["alert.firing", "alert.resolved"],
    });
    const before = (await h.svix.operationalWebhookEndpoint.getSecret(spare.id)).key;
    await h.svix.operationalWebhookEndpoint.rotateSecret(spare.id, {});
    expect((await h.svix.operationalWebhookEndpoint.getSecret(spare.id)).key).not.toBe(before);
    await h.svix.operationalWebhookEndpoint.delete(spare.id);
    // Custom headers, sent with every operational webhook (checked on a delivery below).
    await h.svix.operationalWebhookEndpoint.updateHeaders(opEndpointId, {
      headers: { "x-oncall": "team-a" },
    });
    const headers = await h.svix.operationalWebhookEndpoint.getHeaders(opEndpointId);
    expect(headers.headers).toEqual({ "x-oncall": "team-a" });
    const after = await h.svix.operationalWebhookEndpoint.list();
    expect(after.data.map((e) => e.id)).toEqual([opEndpointId]);
    expect(bad.body.detail).toEqual([
      expect.objectContaining({ loc: ["body", "filterTypes", 1], type: "unknown_event_type" }),
    ]);
  });

  it("announce a 410: the endpoint disabled and the message exhausted", async () => {
    const gone = await anEndpoint(h, rx.url("/gone"));
    const msg = await post(h, gone.appId, { order: 1 });
    const disabled = await waitForEvent(
      "endpoint.disabled",
      (e) => e.data.endpointId === gone.endpointId,
    );
    expect(disabled.data).toMatchObject({ appId: gone.appId, trigger: "automatic" });
    // When it began to fail: the 410, a moment ago.
    expect(Date.now() - Date.parse(String(disabled.data.failSince))).toBeLessThan(60_000);
    const exhausted = await waitForEvent("message.attempt.exhausted", (e) => e.data.msgId === msg);
    expect(exhausted.data).toMatchObject({
      endpointId: gone.endpointId,
      failureClass: "permanent",
      lastAttempt: expect.objectContaining({ responseStatusCode: 410 }),
    });
    // Not a word of the payload.
    expect(JSON.stringify(exhausted)).not.toContain("order");

    const list = await h.api<{ data: { id: string; endpointId: string }[] }>("GET", "/api/v1/dlq");
    const record = list.body.data.find((r) => r.endpointId === gone.endpointId)!;
    expect(
      (await h.api("POST", `/api/v1/dlq/${record.id}/abandon`, { note: "customer left" })).status,
    ).toBe(200);
    const abandoned = await waitForEvent("dlq.record_abandoned", (e) => e.data.dlqId === record.id);
    expect(abandoned.data).toMatchObject({ endpointId: gone.endpointId });
  });

  it("announce a delivery given up without a last request, with the last attempt it made", async () => {
    const failing = await anEndpoint(h, rx.url("/failing"), {
      retry: { delays: [3], jitter: { strategy: "none" } },
    });
    const msg = await post(h, failing.appId, {});
    await h.waitFor(deliveryOf(msg, "pending"));
    // Its retry waits; the endpoint is disabled meanwhile, so the retry ends unsent.
    await h.svix.endpoint.patch(failing.appId, failing.endpointId, { disabled: true });
    const exhausted = await waitForEvent("message.attempt.exhausted", (e) => e.data.msgId === msg);
    expect(exhausted.data).toMatchObject({
      appId: failing.appId,
      endpointId: failing.endpointId,
      failureClass: "permanent",
      lastAttempt: expect.objectContaining({ responseStatusCode: 500 }),
    });
    const list = await h.api<{
      data: { endpointId: string; finalStatus: number; reason: string }[];
    }>("GET", "/api/v1/dlq");
    expect(list.body.data.find((r) => r.endpointId === failing.endpointId)).toMatchObject({
      finalStatus: 500,
      reason: expect.stringContaining("endpoint disabled"),
    });
  });

  it("announce an endpoint someone disables through the API, as a manual trigger", async () => {
    const target = await anEndpoint(h, rx.url("/quiet"));
    await h.svix.endpoint.patch(target.appId, target.endpointId, { disabled: true });
    const disabled = await waitForEvent(
      "endpoint.disabled",
      (e) => e.data.endpointId === target.endpointId,
    );
    expect(disabled.data).toMatchObject({ appId: target.appId, trigger: "manual" });
    // Nothing failed: someone chose to stop it.
    expect(disabled.data.failSince).toBeNull();
    const request = ops.on("/ops").find((r) => r.body.toString().includes(target.endpointId));
    expect(request?.headers["x-oncall"]).toBe("team-a");
  });

  it("announce a delivery failing on its fourth attempt and recovering after", async () => {
    const wobbly = await anEndpoint(h, rx.url("/wobbly"), quick(6));
    const msg = await post(h, wobbly.appId, {});
    await h.waitFor(deliveryOf(msg, "succeeded"));
    const failing = await waitForEvent("message.attempt.failing", (e) => e.data.msgId === msg);
    expect(failing.data).toMatchObject({
      endpointId: wobbly.endpointId,
      lastAttempt: expect.objectContaining({ responseStatusCode: 500 }),
    });
    const recovered = await waitForEvent("message.attempt.recovered", (e) => e.data.msgId === msg);
    expect(recovered.data).toMatchObject({
      lastAttempt: expect.objectContaining({ responseStatusCode: 200 }),
    });
  });

  it("announce a circuit opening and closing", async () => {
    const tripping = await anEndpoint(h, rx.url("/tripping"), quick(10));
    const msg = await post(h, tripping.appId, {});
    await h.waitFor(deliveryOf(msg, "succeeded"));
    const opened = await waitForEvent(
      "endpoint.circuit_opened",
      (e) => e.data.endpointId === tripping.endpointId,
    );
    expect(opened.data).toMatchObject({ from: "closed" });
    // When it probes next, a field of its own: the reason names no wait, which would go stale.
    // The probe is 300 ms after the failure that opened the circuit, whose opening is recorded a
    // moment after it (CI once saw 1 ms between the two readings of the clock).
    const at = Date.parse(String(opened.data.at));
    const probeAt = Date.parse(String(opened.data.nextProbeAt));
    expect(probeAt).toBeGreaterThan(at);
    expect(probeAt).toBeLessThanOrEqual(at + 300);
    // The probe succeeded (half-open); a few more successes close the circuit.
    for (let i = 0; i < 5; i++) await post(h, tripping.appId, { i });
    await h.waitFor(
      (e) =>
        e.type === "circuit" &&
        e.endpointId === tripping.endpointId &&
        e.transition.to === "closed",
    );
    const closed = await waitForEvent(
      "endpoint.circuit_closed",
      (e) => e.data.endpointId === tripping.endpointId,
    );
    expect(closed.data).toMatchObject({ from: "half-open", nextProbeAt: null });
  });

  it("announce a circuit opening once, not again when a failed probe keeps it open", async () => {
    const stubborn = await anEndpoint(h, rx.url("/stubborn"), quick(10));
    const msg = await post(h, stubborn.appId, {});
    // Six failures open the circuit; the first probe fails too, the second succeeds.
    await h.waitFor(
      (e) =>
        e.type === "circuit" &&
        e.endpointId === stubborn.endpointId &&
        e.transition.from === "open" &&
        e.transition.to === "open",
    );
    await h.waitFor(deliveryOf(msg, "succeeded"));
    for (let i = 0; i < 5; i++) await post(h, stubborn.appId, { i });
    await waitForEvent("endpoint.circuit_closed", (e) => e.data.endpointId === stubborn.endpointId);
    // Announced in order, one at a time: all before the closing one have been received.
    const opened = received().filter(
      (e) => e.type === "endpoint.circuit_opened" && e.data.endpointId === stubborn.endpointId,
    );
    expect(opened.map((e) => e.data.from)).toEqual(["closed"]);
  });

  it("announce alerts firing and resolving", async () => {
    const { store, observability } = h.hookline;
    const now = Date.now();
    const step = { name: "send", passed: false, ms: 1, detail: "down" };
    await store.recordDrillRun(
      {
        id: "drill_failed",
        trigger: "manual",
        startedAt: now,
        finishedAt: now,
        passed: false,
        steps: [step],
      },
      10,
    );
    await observability.evaluator.tick();
    const firing = await waitForEvent("alert.firing", (e) => e.data.rule === "drill_failing");
    expect(firing.data).toMatchObject({ severity: "warning", resolvedAt: null });
    await store.recordDrillRun(
      {
        id: "drill_passed",
        trigger: "manual",
        startedAt: now + 1,
        finishedAt: now + 1,
        passed: true,
        steps: [{ ...step, passed: true }],
      },
      10,
    );
    await observability.evaluator.tick();
    const resolved = await waitForEvent("alert.resolved", (e) => e.data.id === firing.data.id);
    expect(resolved.data.resolvedAt).toEqual(expect.any(String));
  });

  it("never announce events about the operational endpoints themselves", async () => {
    const broken = await h.svix.operationalWebhookEndpoint.create({ url: rx.url("/gone") });
    // hookline's alerts reach every operational endpoint, this one too: it answers 410.
    const { store, observability } = h.hookline;
    const now = Date.now();
    await store.recordDrillRun(
      {
        id: "drill_failed_2",
        trigger: "manual",
        startedAt: now + 2,
        finishedAt: now + 2,
        passed: false,
        steps: [],
      },
      10,
    );
    await observability.evaluator.tick();
    await h.waitFor((e) => e.type === "endpoint.disabled" && e.endpointId === broken.id);
    await observability.operational.idle();
    const app = (await store.findApplication(OPERATIONAL_APP_UID))!;
    const messages = await store.listMessages(app.id, { limit: 250 });
    const about = messages.data
      .map((m) => JSON.parse(m.payload.toString("utf8")) as OpEvent)
      .filter((e) => e.data.endpointId === broken.id || e.data.endpointId === opEndpointId);
    expect(about).toEqual([]);
  });
});
