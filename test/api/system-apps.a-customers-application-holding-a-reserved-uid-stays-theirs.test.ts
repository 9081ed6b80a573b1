/**
 * A store from before the uids were reserved may hold a customer's application with uid
 * `hookline-operational` or `hookline-drill`, without hookline's marker. hookline still starts;
 * the application stays an ordinary one (changed, given endpoints and messages as any other);
 * hookline never adopts it, so its endpoints never get hookline's events: registering an
 * operational endpoint, or running a drill, fails with a message naming the application until it
 * is renamed.
 */
import { describe, expect, it } from "vitest";
import type { Application } from "../../src/domain/types.js";
import { newId } from "../../src/ids.js";
import { DRILL_APP_UID, OPERATIONAL_APP_UID } from "../../src/observability/system-apps.js";
import { useCleanup } from "../support/cleanup.js";
import { startHookline, type TestHookline } from "../support/hookline.js";
import { Receiver } from "../support/receiver.js";

const cleanup = useCleanup();

/** A customer's application with `uid`, as an older hookline let anyone create it. */
const customersApp = (uid: string): Application => {
  const now = Date.now();
  return {
    id: newId("app", now),
    uid,
    name: "the customer's",
    rateLimit: null,
    metadata: {},
    deliveryPolicy: null,
    createdAt: now,
    updatedAt: now,
  };
};

/** hookline started over a store that already holds the customer's applications. */
async function restartedWith(apps: Application[]): Promise<TestHookline> {
  const first = await startHookline();
  for (const app of apps) await first.hookline.store.createApplication(app);
  await first.stop(true);
  const h = await startHookline({ dataDir: first.dataDir });
  cleanup.push(() => h.stop());
  return h;
}

describe("a customer's application holding a reserved uid", () => {
  it("stays theirs: operational endpoints are refused, naming it, until it is renamed", async () => {
    const theirs = customersApp(OPERATIONAL_APP_UID);
    const h = await restartedWith([theirs]);
    const rx = await Receiver.start(() => ({ status: 204 }));
    cleanup.push(() => rx.close());

    // An ordinary application to the ordinary API.
    const base = `/api/v1/app/${OPERATIONAL_APP_UID}`;
    expect((await h.api("POST", `${base}/endpoint`, { url: rx.url("/customer") })).status).toBe(
      201,
    );
    expect((await h.api("PATCH", base, { name: "still theirs" })).status).toBe(200);
    expect((await h.api("PUT", base, { name: "still theirs" })).status).toBe(200);

    const refused = await h.api<{ code: string; detail: string }>(
      "POST",
      "/api/v1/operational-webhook/endpoint",
      { url: rx.url("/ops") },
    );
    expect(refused.status).toBe(409);
    expect(refused.body.detail).toContain(`application ${OPERATIONAL_APP_UID} (${theirs.id})`);
    expect(refused.body.detail).toContain("not made by hookline");

    // An alert fires: nothing is written to the customer's application.
    const now = Date.now();
    const failed = { trigger: "manual" as const, startedAt: now, finishedAt: now, passed: false };
    await h.hookline.store.recordDrillRun({ id: "drill_failed", ...failed, steps: [] }, 10);
    await h.hookline.observability.evaluator.tick();
    await h.hookline.observability.operational.idle();
    expect((await h.hookline.store.listMessages(theirs.id, { limit: 10 })).data).toEqual([]);

    // Renamed, the uid is free: hookline makes its own application and uses it.
    expect((await h.api("PATCH", base, { uid: "customer-ops" })).status).toBe(200);
    const created = await h.svix.operationalWebhookEndpoint.create({ url: rx.url("/ops") });
    const own = await h.svix.application.get(OPERATIONAL_APP_UID);
    expect(own.id).not.toBe(theirs.id);
    expect(own.metadata).toEqual({ "hookline.system": "true" });
    expect((await h.hookline.store.getEndpoint(created.id))?.appId).toBe(own.id);
  });

  it("makes the drill fail at its first step, naming the application", async () => {
    const theirs = customersApp(DRILL_APP_UID);
    const h = await restartedWith([theirs]);
    const res = await h.api<{ passed: boolean; steps: { name: string; detail: string }[] }>(
      "POST",
      "/api/v1/drill",
    );
    expect(res.status).toBe(200);
    expect(res.body.passed).toBe(false);
    expect(res.body.steps[0]?.name).toBe("prepare");
    expect(res.body.steps[0]?.detail).toContain(`application ${DRILL_APP_UID} (${theirs.id})`);
    const endpoints = await h.api<{ data: unknown[] }>(
      "GET",
      `/api/v1/app/${DRILL_APP_UID}/endpoint`,
    );
    expect(endpoints.body.data).toEqual([]);
  });
});
