/**
 * The circuit banner said "Since <time>", the circuit's last change: each failed probe reopens the
 * circuit and moves it on, so after a few failed probes a customer debugging their server could
 * not see since when hookline had failed to reach it, to match against their own logs. The banner
 * now says since when the endpoint has been failing (when the circuit opened), besides when it
 * last reopened and when the next probe runs.
 */
import { beforeAll, describe, expect, it } from "vitest";
import type { EngineEvent } from "../../src/engine/events.js";
import { openPortal, useDashboard } from "../support/browser.js";

type Transition = Extract<EngineEvent, { type: "circuit" }>["transition"];

describe("customer portal: the banner of a circuit that failed its probes", () => {
  const ui = useDashboard({
    // One failure opens a circuit, probed a second later. The request that opens it and the first
    // probe fail; the second probe fails too, and its Retry-After puts the next an hour off.
    hookline: { overrides: { breaker: { consecutiveFailures: 1, probeDelayMs: 1_000 } } },
    receiver: (_, i) =>
      i < 2 ? { status: 500 } : { status: 503, headers: { "retry-after": "3600" } },
  });
  let appId: string;
  let epId: string;
  let opened: Transition;
  let last: Transition;

  beforeAll(async () => {
    const { h, rx, page } = ui;
    appId = (
      await h.api<{ id: string }>("POST", "/api/v1/app", {
        name: "Acme",
        deliveryPolicy: { retry: { delays: [1, 1, 1, 1, 1], window: 3600 } },
      })
    ).body.id;
    epId = (await h.svix.endpoint.create(appId, { url: rx.url("/down") })).id;
    await h.svix.message.create(appId, { eventType: "order.paid", payload: {} });
    // The second probe's failure, the circuit's third change.
    await h.waitFor(
      (e) => e.type === "circuit" && e.endpointId === epId && /HTTP 503/.test(e.transition.reason),
      20_000,
    );
    const steps = h.events.flatMap((e) =>
      e.type === "circuit" && e.endpointId === epId ? [e.transition] : [],
    );
    expect(steps.map((t) => `${t.from}>${t.to}`)).toEqual([
      "closed>open",
      "open>open",
      "open>open",
    ]);
    [opened, , last] = steps as [Transition, Transition, Transition];
    await openPortal(page, h, appId);
  });

  it("says since when the endpoint has been failing, and when it last reopened", async () => {
    const { h, page } = ui;
    await page.goto(`${h.url}/portal/#/app/${appId}/endpoint/${epId}`);
    const banner = page.getByTestId("circuit-banner");
    await banner.getByText(/Reopened 2\u00a0times in a row/).waitFor({ timeout: 15_000 });
    // Times as the page writes them: the browser's, with its zone.
    const [openedShown, lastShown] = await page.evaluate(
      (times) => times.map((t) => new Date(t).toLocaleString(undefined, { timeZoneName: "short" })),
      [opened.at, last.at],
    );
    expect(openedShown).not.toBe(lastShown);
    const text = await banner.innerText();
    expect(text).toContain(`Failing since ${openedShown} (`);
    expect(text).toMatch(/Why: probe failed: HTTP 503[^.]*\. Since /);
    expect(text).toContain(`Since ${lastShown} (`);
    // The message's retry would fall past its window at that probe: it was given up, and none waits.
    expect(text).toMatch(
      /Next probe: the next message for this endpoint, as none waits now, sent once the probe's time comes: in\s(1\sh|\d+\smin)/,
    );
  });
});
