/** Bulk replays: the form that starts one (time window, canary), the list, and live progress. */
import { api, seg } from "../api.js";
import { confirmed } from "../confirm.js";
import { action, field, h, link, onSubmit, table, toast } from "../dom.js";
import { ago, isoOf, localInput, localZone, time, unitsKept, withLocalTimes } from "../format.js";
import { live, refreshNow } from "../live.js";
import { pagedList, pagesAt } from "../paging.js";
import type { ReplayJob } from "../types.js";
import { cancelJobQuestion, nothingToReplay, windowReplayQuestion } from "./dlq-questions.js";

/**
 * Starts a bulk replay of open records dead-lettered in a time window, canary first; `endpointId`
 * fills in the endpoint on a page that shows one endpoint's records, so that the replay started
 * there is of those records, not of every endpoint's.
 */
export function bulkReplayForm(endpointId?: string): HTMLElement {
  // The last day by default: the usual "replay what failed during the outage".
  const since = h("input", {
    type: "datetime-local",
    name: "since",
    required: true,
    step: 1,
    value: localInput(Date.now() - 24 * 3600_000),
  });
  const until = h("input", { type: "datetime-local", name: "until", step: 1 });
  const endpoint = h("input", {
    name: "endpointId",
    placeholder: "all endpoints",
    value: endpointId ?? "",
  });
  // Empty unless typed: hookline's configured defaults apply (HOOKLINE_DLQ_CANARY_SIZE and
  // HOOKLINE_DLQ_REPLAY_RATE), as for a group's replay.
  const canary = h("input", { type: "number", name: "canarySize", min: 0, step: 1 });
  const rate = h("input", { type: "number", name: "rate", min: 0.01, step: "any" });
  const numberOf = (input: HTMLInputElement) => (input.value ? Number(input.value) : undefined);
  const form = h(
    "form",
    { class: "card", "aria-labelledby": "bulk-title" },
    h("h2", { id: "bulk-title" }, "Bulk replay by time window"),
    h(
      "div",
      { class: "row wrap" },
      field("Dead-lettered from", since, `Your time zone: ${localZone()}`),
      field("Until", until, `Empty: until now. Your time zone: ${localZone()}`),
      field("Endpoint id", endpoint),
      field(
        "Canary size",
        canary,
        "Replayed first; the job stops if too many fail. Empty: the configured size",
      ),
      field("Rate per second", rate, "Empty: the configured rate"),
    ),
    h("button", { type: "submit" }, "Start bulk replay"),
  );
  // Once at a time: a double click started two jobs over the same records. Asked first, with the
  // count of records it would replay now: it sends each to a customer's endpoint again.
  onSubmit(form, async () => {
    const replay = {
      since: isoOf(since.value),
      until: isoOf(until.value),
      endpointId: endpoint.value.trim() || undefined,
      canarySize: numberOf(canary),
      ratePerSecond: numberOf(rate),
    };
    const question = await windowReplayQuestion(replay);
    if (!question) throw new Error(nothingToReplay(replay));
    if (!(await confirmed(question))) return;
    const job = await api<ReplayJob>("POST", "/api/v1/dlq/replay", replay);
    toast(`Bulk replay ${job.id} started`);
    location.hash = `#/jobs/${job.id}`;
  });
  return form;
}

// A withdrawn replay (its endpoint disabled or deleted while it waited, or taken back when the
// job stopped) is done with too, as the CLI's bar counts it: left out, a completed job whose
// endpoint was disabled read "0 of 2 done" with no word of where the two went.
const done = (j: ReplayJob) =>
  j.progress.succeeded + j.progress.failed + j.progress.skipped + j.progress.withdrawn;

/**
 * A job without its records yet: only a running one is taking them; a scheduled one waits for its
 * start, and one cancelled before it never will.
 */
function notStarted(j: ReplayJob): string {
  if (j.state === "scheduled") return `scheduled to start ${time(j.startAt)}`;
  if (j.state === "running") return "selecting records…";
  return `${j.state} before it selected any records`;
}

/**
 * What the job's reason is to a reader, as its label. An ended job's is its result (or why it
 * stopped); a scheduled one's why it has not started though its start time passed (hookline
 * already runs as many jobs as it may); a running one's what it waits for, or its canary's
 * verdict, shown as it is. Called a result, either read as if the job had ended.
 */
function reasonLabel(j: ReplayJob): string {
  if (j.state === "stopped") return "Stopped: ";
  if (j.state === "scheduled") return "Not started yet: ";
  if (j.state === "completed" || j.state === "cancelled") return "Result: ";
  return "";
}

/** The job's progress as a native progress bar with words. */
function progress(j: ReplayJob): HTMLElement {
  const total = j.progress.total;
  return h(
    "div",
    { class: "progress" },
    h("progress", {
      max: total ?? 1,
      value: total === null ? 0 : done(j),
      "aria-label": `Progress of ${j.id}`,
    }),
    h(
      "span",
      { "data-testid": "job-progress" },
      total === null ? notStarted(j) : `${done(j)} of ${total} done`,
      total === null
        ? ""
        : ` · ${j.progress.succeeded} delivered, ${j.progress.failed} failed, ${j.progress.skipped} skipped`,
      total === null || !j.progress.withdrawn ? "" : `, ${j.progress.withdrawn} withdrawn`,
    ),
  );
}

export async function renderJobs(page: HTMLElement): Promise<void> {
  const jobs = pagedList<ReplayJob>(
    pagesAt(() => "/api/v1/dlq/replay?limit=50"),
    "More jobs",
    "more-jobs",
  );
  const list = h("section", { "aria-label": "Replay jobs" });
  page.append(h("h1", {}, "Replay jobs"), list, bulkReplayForm());
  await live(list, jobs.load, (shown) => [
    table(
      "Newest first",
      ["Job", "State", "Stage", "Progress", "By", "Created"],
      shown.data.map((j) => [
        link(`/jobs/${j.id}`, h("code", {}, j.id), { "data-key": `job-${j.id}` }),
        h("span", { class: `badge job-${j.state}` }, j.state),
        j.stage,
        progress(j),
        j.createdBy,
        ago(j.createdAt),
      ]),
    ),
    ...jobs.more(shown.done),
  ]);
}

export async function renderJob(page: HTMLElement, p: Record<string, string>): Promise<void> {
  const path = `/api/v1/dlq/replay/${seg(p.id!)}`;
  const view = h("section", { "aria-label": "Job" });
  // The job as last read, which the question before cancelling it speaks of.
  let shown: ReplayJob | null = null;
  const cancel = action(
    "Cancel job",
    async () => {
      const j = shown;
      if (!j || !(await confirmed(cancelJobQuestion(j, done(j))))) return;
      await api("POST", `${path}/cancel`);
      toast("Job cancelled");
      await refreshNow();
    },
    { "data-key": "cancel-job" },
  );
  page.append(
    h("p", {}, link("/jobs", "← Replay jobs")),
    h("h1", {}, "Bulk replay ", h("code", {}, p.id!)),
    view,
  );
  await live(
    view,
    // Kept as read: the job moves on while the question is open, and it speaks of it as shown.
    async () => (shown = await api<ReplayJob>("GET", path)),
    (j) => [
      h(
        "p",
        {},
        h("span", { class: `badge job-${j.state}`, "data-testid": "job-state" }, j.state),
        // To a hundredth of a percent, as it was given: 99.5 rounded whole read "100%".
        ` · stage ${j.stage} · canary ${j.canary.size} at ${Math.round(j.canary.threshold * 10_000) / 100}% · ${j.ratePerSecond}/s`,
      ),
      progress(j),
      h(
        "p",
        { class: j.state === "stopped" ? "error" : "", "data-testid": "job-reason" },
        j.reason ? `${reasonLabel(j)}${unitsKept(withLocalTimes(j.reason))}` : "",
      ),
      h(
        "p",
        {},
        `Started by ${j.createdBy} `,
        ago(j.createdAt),
        j.finishedAt ? `, finished ${time(j.finishedAt)}` : "",
        j.note ? ` — ${j.note}` : "",
      ),
      h("pre", { class: "payload" }, JSON.stringify(j.selection, null, 2)),
      // Only a job that has not ended can be cancelled.
      h("p", {}, j.state === "scheduled" || j.state === "running" ? cancel : ""),
    ],
  );
}
