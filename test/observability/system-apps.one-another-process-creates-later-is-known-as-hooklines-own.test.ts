/**
 * Events about hookline's own endpoints (operational, drill) are never announced, also in a
 * process of a fleet that looked at endpoints before another process created the drill's or the
 * operational application: on PostgreSQL, any process may create them (the first drill, the
 * first operational endpoint registered) and any worker may deliver to their endpoints.
 */
import { expect, it } from "vitest";
import { systemClock } from "../../src/clock.js";
import {
  DRILL_APP_UID,
  ensureSystemApp,
  OPERATIONAL_APP_UID,
  SystemEndpoints,
} from "../../src/observability/system-apps.js";
import { useCleanup } from "../support/cleanup.js";
import { aSharedStore, freshSchemaName } from "../support/postgres.js";
import { anApplication, anEndpoint } from "../store/behaviour/fixtures.js";

const cleanup = useCleanup();

it("an application another process creates later is known as hookline's own", async () => {
  const schema = freshSchemaName();
  const here = await aSharedStore(cleanup, schema);
  const there = await aSharedStore(cleanup, schema);
  const system = new SystemEndpoints(here);

  // This process looks at a customer's endpoint before any system application exists.
  const customer = await there.createApplication(anApplication());
  const theirs = await there.createEndpoint(anEndpoint(customer.id));
  expect(await system.isSystem(theirs.id)).toBe(false);

  // Another process runs the first drill and registers the first operational endpoint.
  for (const uid of [DRILL_APP_UID, OPERATIONAL_APP_UID]) {
    const app = await ensureSystemApp(there, systemClock, uid);
    const ep = await there.createEndpoint(anEndpoint(app.id));
    expect(await system.isSystem(ep.id)).toBe(true);
  }
  expect(await system.isSystem(theirs.id)).toBe(false);
});
