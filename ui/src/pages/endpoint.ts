/**
 * One endpoint: the circuit banner, its messages of the last day counted by where they stand,
 * success rate and latency over time, the retry schedule in force, Retry-After counts, recent
 * attempts, and every action on it.
 */
import { api, seg } from "../api.js";
import { field, h, link, table } from "../dom.js";
import { ago, latency, percent, seconds, time, unitsKept } from "../format.js";
import { lineChart } from "../chart.js";
import { live, refreshNow } from "../live.js";
import { pagedList, pagesAt } from "../paging.js";
import { addressQuery, setAddressQuery } from "../address.js";
import type { Ctx } from "../routes.js";
import type { App, Attempt, Circuit, Endpoint, RetrySchedule, Stats } from "../types.js";
import { attemptResult, isRedirect, responseCell, viewOf } from "./attempt.js";
import { retryAfterMark } from "./retry-after.js";
import { endpointActions } from "./endpoint-actions.js";
import { countsOf, countsView, heldOf, WINDOW_WORDS } from "./endpoint-counts.js";
import { circuitBadge, circuitBanner, disabledBanner } from "./health.js";

export async function renderEndpoint(
  page: HTMLElement,
  p: Record<string, string>,
  ctx: Ctx,
): Promise<void> {
  const app = await api<App>("GET", `/api/v1/app/${seg(p.app!)}`);
  const path = `/api/v1/app/${seg(app.id)}/endpoint/${seg(p.ep!)}`;
  const first = await api<Endpoint>("GET", path);
  // The banner is drawn again only when what it says changes, not with the facts below it (their
  // in-flight count changes at every request): a screen reader announces an alert, or a status,
  // each time one is drawn.
  const banner = h("div");
  let bannerSays = "";
  const facts = h("div");
  const head = h("section", { "aria-label": "Endpoint state" }, banner, facts);
  const counts = h("section", { "aria-labelledby": "counts-title" });
  const stats = countsOf(path);
  // The endpoint as the state above last read it: why waiting messages wait, said below it.
  let shown = first;
  const charts = h("section", { "aria-labelledby": "charts-title" });
  const schedule = h("section", { "aria-labelledby": "schedule-title" });
  const attempts = h("section", { "aria-label": "Recent attempts" });
  // All attempts or the failed ones (Svix's status 2), newest first, 20 at a time.
  const show = h(
    "select",
    { name: "show" },
    h("option", { value: "" }, "All attempts"),
    h("option", { value: "&status=2" }, "Failed attempts"),
  );
  // The choice is kept in the address (`?attempts=failed`): a link to it, a bookmark, a reload
  // and Back from an attempt's message show what it did.
  if (addressQuery().get("attempts") === "failed") show.value = "&status=2";
  const recent = pagedList<Attempt>(
    pagesAt(
      () => `/api/v1/app/${seg(app.id)}/attempt/endpoint/${seg(first.id)}?limit=20${show.value}`,
    ),
    "More attempts",
    "more-attempts",
  );
  show.addEventListener("change", () => {
    const query = addressQuery();
    if (show.value) query.set("attempts", "failed");
    else query.delete("attempts");
    setAddressQuery(query);
    recent.reset();
    void refreshNow();
  });
  const actions = endpointActions(app.id, first, path);
  // This endpoint's records in the dead-letter queue, the console's; the portal has no such page.
  const deadLetters = ctx.portal ? null : `/dlq?endpoint=${seg(first.id)}`;
  const title = h("h1", {}, first.url);
  page.append(
    h("p", {}, link(`/app/${app.id}/endpoints`, `← Endpoints of ${app.name}`)),
    title,
    head,
    actions.element,
    h("h2", { id: "counts-title" }, `Messages of the ${WINDOW_WORDS}`),
    counts,
    h("h2", { id: "charts-title" }, "Last hour"),
    charts,
    h("h2", { id: "schedule-title" }, "Retry schedule"),
    schedule,
    h("h2", {}, "Attempts"),
    h("div", { class: "row" }, field("Show", show)),
    attempts,
  );
  await Promise.all([
    live(
      facts,
      async () => {
        const ep = await api<Endpoint>("GET", path);
        const circuit = await api<Circuit>("GET", `${path}/circuit`);
        // The probe is a waiting delivery: with none, the banner says the next message is it.
        // The counts' read, shared with them (at most one every 10 s), says whether one waits,
        // or is out (a probe on its way is sending, not waiting).
        const counted = circuit.state === "open" && !ep.disabled ? await stats() : null;
        const nothingWaits = counted !== null && counted.pendingNow.count + counted.sending === 0;
        return { ep, circuit, nothingWaits };
      },
      ({ ep, circuit, nothingWaits }) => {
        // Followed when drawn, not when read: a late answer (a read started before an action's)
        // is not drawn, and must not turn the buttons and the edit form back either.
        shown = ep;
        actions.follow(ep);
        // The URL may have been edited since the page opened (here or through the API).
        title.textContent = ep.url;
        const says = JSON.stringify(
          ep.disabled ? { reason: ep.disabledReason } : { circuit, nothingWaits },
        );
        if (says !== bannerSays) {
          bannerSays = says;
          banner.replaceChildren(
            (ep.disabled
              ? disabledBanner(ep, deadLetters)
              : circuitBanner(circuit, { nothingWaits })) ?? "",
          );
        }
        return [
          h(
            "dl",
            { class: "facts" },
            h("dt", {}, "Status"),
            h(
              "dd",
              {},
              ep.disabled
                ? `Disabled${ep.disabledReason ? ` (${ep.disabledReason})` : ""}`
                : "Enabled",
            ),
            h("dt", {}, "Circuit"),
            h(
              "dd",
              {},
              circuitBadge(circuit.state),
              ` since ${time(circuit.since)} (`,
              ago(circuit.since, { exactBeside: true }),
              ")",
            ),
            h("dt", {}, "In flight"),
            h(
              "dd",
              {},
              `${ep.concurrency.inFlight} of ${ep.concurrency.effectiveLimit} allowed (limit ${ep.concurrency.limit})`,
            ),
            h("dt", {}, "Last success"),
            h("dd", {}, ago(ep.lastSuccessAt)),
            h("dt", {}, "Retry-After answers"),
            h(
              "dd",
              {},
              Object.entries(ep.retryAfter)
                .map(([k, v]) => `${v} ${k}`)
                .join(", ") || "none",
            ),
            h("dt", {}, "Event types"),
            h("dd", {}, ep.filterTypes?.join(", ") ?? "all"),
            // A message on none of these channels (or on none at all) never comes here: without
            // them shown, a customer whose endpoint filters by channel could not see why.
            h("dt", {}, "Channels"),
            h(
              "dd",
              {},
              ep.channels?.length
                ? `${ep.channels.join(", ")} (only messages sent on one of these)`
                : "all",
            ),
          ),
        ];
      },
    ),
    live(
      counts,
      async () => ({ stats: await stats(), held: heldOf(shown) }),
      (c) => countsView(c, deadLetters),
    ),
    live(
      charts,
      () => api<Stats>("GET", `${path}/attempt-stats?minutes=60&bucket_seconds=60`),
      (s) => {
        const at = (b: Stats["buckets"][number]) => Date.parse(b.start);
        return h(
          "div",
          { class: "charts" },
          h(
            "figure",
            {},
            lineChart(
              "Success rate per minute",
              s.buckets.map((b) => ({ x: at(b), y: b.successRate })),
              {
                yMax: 1,
                xMin: Date.parse(s.since),
                xMax: Date.now(),
                format: (y) => percent(y),
              },
            ),
            h("figcaption", {}, "Success rate per minute"),
          ),
          h(
            "figure",
            {},
            lineChart(
              "Mean latency per minute",
              s.buckets.map((b) => ({ x: at(b), y: b.meanDurationMs })),
              {
                xMin: Date.parse(s.since),
                xMax: Date.now(),
                format: latency,
              },
            ),
            h("figcaption", {}, "Mean latency per minute"),
          ),
        );
      },
    ),
    live(
      schedule,
      () => api<RetrySchedule>("GET", `${path}/retry-schedule`),
      (r) => [
        h(
          "p",
          {},
          unitsKept(r.description),
          ` (preset ${r.preset}, set by the ${r.source} policy).`,
        ),
        table(
          "Retries after a failed attempt",
          ["Retry", "Delay", "After the first attempt"],
          r.retries.map((x) => [
            `#${x.attempt}`,
            seconds(x.nominalDelaySeconds),
            seconds(x.nominalOffsetSeconds),
          ]),
        ),
        h(
          "p",
          {},
          `Retry-After from the receiver: waits up to ${seconds(r.retryAfter.honouredBelowSeconds)} are honoured; ` +
            `longer ones up to ${seconds(r.retryAfter.ignoredAboveSeconds)} are shortened to ${seconds(r.retryAfter.cappedToSeconds)}; ` +
            "longer still are ignored and the schedule above applies.",
        ),
        h("p", {}, notRetried(r.permanent)),
      ],
    ),
    live(
      attempts,
      async (poll) => ({ ...(await recent.load(poll)), failedOnly: show.value !== "" }),
      (list) => [
        table(
          "Recent attempts",
          ["When", "Result", "Status", "Duration", "Trigger", "Message", "Response"],
          list.data.map((a) => [
            ago(a.timestamp),
            h("span", { class: `badge outcome-${a.outcome}` }, a.outcome.replace("_", " ")),
            (!a.responseStatusCode
              ? attemptResult(viewOf(a))
              : isRedirect(viewOf(a))
                ? `${a.responseStatusCode} (not followed)`
                : String(a.responseStatusCode)) + retryAfterMark(a),
            latency(a.responseDurationMs),
            a.trigger,
            link(`/app/${app.id}/message/${a.msgId}`, h("code", {}, a.msgId), {
              "data-key": `attempt-msg-${a.id}`,
            }),
            responseCell(viewOf(a)),
          ]),
          list.failedOnly ? "No failed attempts." : "No attempts yet.",
        ),
        ...recent.more(list.done),
      ],
    ),
  ]);
}

/**
 * "Not retried: HTTP 400, 404 and 422 (…)": which answers end a delivery at once, so a customer
 * seeing a 400 given up on and a 409 retried can tell why.
 */
function notRetried(p: RetrySchedule["permanent"]): string {
  const codes = p.statuses.map(String);
  const list = codes.length > 1 ? `${codes.slice(0, -1).join(", ")} and ${codes.at(-1)}` : codes[0];
  const from = p.source === "default" ? "hookline's default set" : `set by the ${p.source} policy`;
  return (
    `Not retried: HTTP ${list} (${from}). ` +
    "hookline gives up on such an answer at once; 410 also disables the endpoint."
  );
}
