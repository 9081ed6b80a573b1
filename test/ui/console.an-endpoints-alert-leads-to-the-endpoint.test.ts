/**
 * An alert about one endpoint (`endpoint_failing`) names the endpoint's application in the API, and
 * the alerts page links it to the endpoint's page, where its attempts say what went wrong. Before,
 * the operator read an endpoint id in the summary and had to find its application by hand.
 */
import { describe, expect, it } from "vitest";
import { anEndpoint } from "../support/dlq.js";
import { FakeClock } from "../support/fake-clock.js";
import { signIn, useDashboard } from "../support/browser.js";

interface Alert {
  endpointId: string | null;
  appId: string | null;
}

describe("operator console: an endpoint's alert", () => {
  const clock = new FakeClock(Date.now());
  const ui = useDashboard({ hookline: { overrides: { clock } } });

  it("leads to the endpoint's page", async () => {
    const { h, rx, page } = ui;
    const ep = await anEndpoint(h, rx.url("/failing"));
    const summary = `endpoint ${ep.endpointId} succeeds on 0.0 % of attempts`;
    await h.hookline.store.saveAlerts({
      holder: "test",
      alerts: [
        {
          id: "alrt_test",
          rule: "endpoint_failing",
          severity: "warning",
          summary,
          endpointId: ep.endpointId,
          value: 0,
          threshold: 0.5,
          since: clock.now(),
          resolvedAt: null,
          supersededBy: null,
        },
      ],
      forgetResolvedBefore: 0,
    });
    const listed = await h.api<{ firing: Alert[] }>("GET", "/api/v1/alerts");
    expect(listed.body.firing).toMatchObject([{ endpointId: ep.endpointId, appId: ep.appId }]);

    await signIn(page, h.url, h.token);
    await page.getByRole("navigation").getByRole("link", { name: "Alerts" }).click();
    const firing = page.getByRole("table", { name: "Firing" });
    await firing.getByRole("link", { name: summary }).click();
    await page.getByRole("heading", { name: rx.url("/failing") }).waitFor();
    expect(page.url()).toContain(`/app/${ep.appId}/endpoint/${ep.endpointId}`);
  });
});
