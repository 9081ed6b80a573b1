/**
 * hookline's operational application (uid `hookline-operational`) is listed with the others, but
 * the applications API refuses to delete it (409). A store cleaned by hand, or restored from a
 * backup, may still lack it: operational endpoints registered after that are kept in a new one,
 * listed, and receive hookline's events, on both stores; none is left under the deleted
 * application, to vanish at the next restart.
 */
import { afterEach, describe, expect, it } from "vitest";
import { OPERATIONAL_APP_UID } from "../../src/observability/system-apps.js";
import { startHookline } from "../support/hookline.js";
import { dropSchema, freshSchemaName, TEST_DATABASE_URL } from "../support/postgres.js";
import { Receiver } from "../support/receiver.js";

const stores: [string, () => Record<string, string>][] = [
  ["SQLite", () => ({})],
  [
    "PostgreSQL",
    () => ({ DATABASE_URL: TEST_DATABASE_URL, HOOKLINE_PG_SCHEMA: freshSchemaName() }),
  ],
];

describe.each(stores)(
  "operational webhooks after their application is deleted (%s)",
  (_, storeEnv) => {
    const cleanups: (() => Promise<void>)[] = [];
    afterEach(async () => {
      for (const c of cleanups.splice(0).reverse()) await c();
    });

    it("register endpoints in a new application, which receive hookline's events", async () => {
      const env = storeEnv();
      if (env.HOOKLINE_PG_SCHEMA) cleanups.push(() => dropSchema(env.HOOKLINE_PG_SCHEMA!));
      const ops = await Receiver.start(() => ({ status: 204 }));
      cleanups.push(() => ops.close());
      const h = await startHookline({ env });
      cleanups.push(() => h.stop());
      const before = await h.svix.operationalWebhookEndpoint.create({ url: ops.url("/before") });
      expect((await h.api("DELETE", `/api/v1/app/${OPERATIONAL_APP_UID}`)).status).toBe(409);
      expect((await h.svix.operationalWebhookEndpoint.list()).data.map((e) => e.id)).toEqual([
        before.id,
      ]);
      // Deleted behind the API's back, as by hand in the database.
      const old = await h.hookline.store.findApplication(OPERATIONAL_APP_UID);
      await h.hookline.store.deleteApplication(old!.id);

      const again = await h.svix.operationalWebhookEndpoint.create({ url: ops.url("/after") });
      const listed = await h.svix.operationalWebhookEndpoint.list();
      expect(listed.data.map((e) => e.id)).toEqual([again.id]);
      const app = await h.hookline.store.findApplication(OPERATIONAL_APP_UID);
      expect((await h.hookline.store.getEndpoint(again.id))?.appId).toBe(app?.id);

      // An alert fires (the latest drill failed): the new endpoint receives it.
      const now = Date.now();
      await h.hookline.store.recordDrillRun(
        {
          id: "drill_failed",
          trigger: "manual",
          startedAt: now,
          finishedAt: now,
          passed: false,
          steps: [],
        },
        10,
      );
      await h.hookline.observability.evaluator.tick();
      await ops.waitFor(1, "/after", 10_000);
      const event = JSON.parse(ops.on("/after")[0]!.body.toString("utf8")) as { type: string };
      expect(event.type).toBe("alert.firing");
    });
  },
);
