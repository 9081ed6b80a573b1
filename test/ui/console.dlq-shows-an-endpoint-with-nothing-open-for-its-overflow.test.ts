/**
 * The console's dead-letter groups with an endpoint whose records are all resolved but some of
 * whose dead letters were never kept (the depth cap): its line says how many were not kept, shows
 * no age, and offers no group replay, since there is nothing to replay.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { signIn, useDashboard } from "../support/browser.js";
import { anEndpoint, deadLetters, PATIENT_BREAKER, post } from "../support/dlq.js";
import { deliveryOf } from "../support/hookline.js";

describe("operator console: an endpoint listed for its overflow", () => {
  const ui = useDashboard({
    hookline: {
      env: { HOOKLINE_DLQ_MAX_PER_ENDPOINT: "1" },
      overrides: { breaker: PATIENT_BREAKER },
    },
    receiver: () => ({ status: 503 }),
  });
  beforeAll(async () => {
    const { h, rx, page } = ui;
    const ep = await anEndpoint(h, rx.url("/orders"));
    const [record] = await deadLetters(h, ep, 1);
    await h.waitFor(deliveryOf(await post(h, ep.appId, { over: "the cap" }), "dead"));
    const resolved = await h.api("POST", `/api/v1/dlq/${record!.id}/resolve`, { note: "by hand" });
    expect(resolved.status).toBe(200);
    await signIn(page, h.url, h.token);
  });

  it("says how many were not kept and offers no replay", async () => {
    const { page } = ui;
    await page.getByRole("navigation").getByRole("link", { name: "Dead letters" }).click();
    const groups = page.getByRole("table", { name: "Groups of open records" });
    await groups.getByRole("cell", { name: "none open; 1 not kept (depth cap)" }).waitFor();
    await groups.getByRole("cell", { name: "—", exact: true }).waitFor();
    expect(await groups.getByRole("button", { name: /Replay/ }).count()).toBe(0);
  });
});
