/**
 * The dead-letter queue across applications, or of one endpoint (`#/dlq?endpoint=ep_…`, linked
 * from the endpoint page's counts): open records grouped by endpoint and failure class, the
 * records with one-click replay, bulk replay by time window, and one record in full.
 */
import { api, getWithText, seg } from "../api.js";
import { confirmed } from "../confirm.js";
import { action, field, h, link, table, toast } from "../dom.js";
import { ago, latency, seconds, time, unitsKept, withLocalTimes } from "../format.js";
import { live, refreshNow } from "../live.js";
import { addressQuery } from "../address.js";
import { pagedList, pagesAt } from "../paging.js";
import type { DeadLetter, DeadLetterRecord, SummaryRow } from "../types.js";
import { attemptResult, failureWords, payloadView, responseCell } from "./attempt.js";
import { retryAfterMark } from "./retry-after.js";
import { abandonQuestion, groupReplayQuestion } from "./dlq-questions.js";
import { circuitBadge } from "./health.js";
import { bulkReplayForm } from "./jobs.js";

const stateBadge = (s: DeadLetter["state"]) =>
  h("span", { class: `badge dlq-${s}`, "data-testid": "dlq-state" }, s);

export async function renderDlq(page: HTMLElement): Promise<void> {
  const summary = h("section", { "aria-labelledby": "summary-title" });
  const records = h("section", { "aria-label": "Open records" });
  // One endpoint's records only, when the address names it; a record opened from here keeps it,
  // so that its page leads back to this endpoint's records, not every endpoint's.
  const only = addressQuery().get("endpoint");
  const kept = only ? `?endpoint=${seg(only)}` : "";
  const open = pagedList<DeadLetter>(
    pagesAt(
      () =>
        "/api/v1/dlq?state=open,replaying&limit=50&order=descending" +
        (only ? `&endpoint_id=${seg(only)}` : ""),
    ),
    "More records",
    "more-records",
  );
  // Both regions show the summary (the groups, and the records' endpoint URLs), and they refresh
  // together: one read, shared while it is under way, serves both. Each read it twice every 2 s,
  // and the summary groups every open record, however many there are.
  let summaryRead: Promise<{ data: SummaryRow[] }> | null = null;
  const readSummary = (): Promise<{ data: SummaryRow[] }> =>
    (summaryRead ??= api<{ data: SummaryRow[] }>("GET", "/api/v1/dlq/summary").finally(() => {
      summaryRead = null;
    }));
  const groups = async () => {
    const all = await readSummary();
    return only ? { data: all.data.filter((g) => g.endpointId === only) } : all;
  };
  page.append(
    h("h1", {}, "Dead letters"),
    only
      ? h(
          "p",
          { "data-testid": "dlq-filter" },
          "Only the records of endpoint ",
          h("code", {}, only),
          ". ",
          link("/dlq", "Show every endpoint's records"),
        )
      : "",
    h("h2", { id: "summary-title" }, "Open records by endpoint and failure class"),
    summary,
    // Filtered, the page replays that endpoint's records: empty, the form's endpoint field meant
    // every endpoint's, under a page that says it shows one endpoint's only.
    bulkReplayForm(only ?? undefined),
    records,
  );
  await Promise.all([
    live(summary, groups, (s) =>
      table(
        "Groups of open records",
        ["Endpoint", "Failure class", "Open", "Replaying", "Oldest", "Circuit", ""],
        s.data.map((g) => [
          link(`/app/${g.appId}/endpoint/${g.endpointId}`, g.url ?? g.endpointId, {
            "data-key": `group-ep-${g.endpointId}-${g.failureClass ?? "overflow"}`,
          }),
          // An endpoint with nothing open is listed only because some of its dead letters were
          // not kept: say so, and offer no replay (there is nothing to replay).
          g.failureClass ?? `none open; ${g.overflowed} not kept (depth cap)`,
          String(g.open),
          String(g.replaying),
          g.oldestAgeSeconds === null ? "—" : `${seconds(g.oldestAgeSeconds)} old`,
          circuitBadge(g.circuit.state),
          g.failureClass !== null &&
            action(
              "Replay group",
              async () => {
                // Asked first: it sends every record of the group to the endpoint again.
                if (!(await confirmed(groupReplayQuestion(g)))) return;
                const job = await api<{ id: string }>("POST", "/api/v1/dlq/replay", {
                  endpointId: g.endpointId,
                  failureClass: g.failureClass,
                  note: "replayed from the dashboard",
                });
                location.hash = `#/jobs/${job.id}`;
              },
              {
                "data-key": `group-${g.endpointId}-${g.failureClass}`,
                // Its words first, so that one saying "Replay group" finds it by voice.
                "aria-label": `Replay group: every ${g.failureClass} record of ${g.url ?? g.endpointId}`,
              },
            ),
        ]),
      ),
    ),
    live(
      records,
      async (poll) => {
        // Every open record's endpoint is in the summary, which has its URL. Asked for at once,
        // not after the records, so the summary's own region is still reading the same answer.
        const [list, summary] = await Promise.all([open.load(poll), groups()]);
        const urls = Object.fromEntries(summary.data.map((g) => [g.endpointId, g.url]));
        return { list, urls };
      },
      ({ list, urls }) => [
        table(
          "Open records, newest first",
          ["Record", "Endpoint", "Event type", "Failure", "Dead-lettered", "State", ""],
          list.data.map((d) => [
            link(`/dlq/${d.id}${kept}`, h("code", {}, d.id), { "data-key": `dlq-${d.id}` }),
            link(`/app/${d.appId}/endpoint/${d.endpointId}`, urls[d.endpointId] ?? d.endpointId, {
              "data-key": `dlq-ep-${d.id}`,
            }),
            d.eventType,
            `${d.failureClass}: ${unitsKept(failureWords(d.reason))}`,
            ago(d.deadLetteredAt),
            stateBadge(d.state),
            action(
              "Replay",
              async () => {
                const out = await api<{ result: string; detail: string | null }>(
                  "POST",
                  `/api/v1/dlq/${seg(d.id)}/replay`,
                  {},
                );
                toast(`Replay ${out.result}${out.detail ? `: ${withLocalTimes(out.detail)}` : ""}`);
                await refreshNow();
              },
              { "data-key": `replay-${d.id}`, "aria-label": `Replay ${d.id}` },
            ),
          ]),
        ),
        ...open.more(list.done),
      ],
    ),
  ]);
}

export async function renderDeadLetter(
  page: HTMLElement,
  p: Record<string, string>,
): Promise<void> {
  const path = `/api/v1/dlq/${seg(p.id!)}`;
  const head = h("section", { "aria-label": "Record" });
  // Opened from one endpoint's records (see renderDlq), it leads back to them.
  const from = addressQuery().get("endpoint");
  const note = h("input", { name: "note", maxlength: 1000, placeholder: "why" });
  // The record as last read, which the question before abandoning it speaks of.
  let shown: DeadLetterRecord | null = null;
  // Abandoning is asked first: the record cannot be reopened. Resolving is not: a resolved record
  // can still be replayed. One not open is left to hookline to refuse, saying why.
  const decide = (verb: "resolve" | "abandon") =>
    action(
      verb === "resolve" ? "Resolve" : "Abandon",
      async () => {
        if (!note.value.trim()) throw new Error("Write a note saying why first.");
        if (verb === "abandon") {
          const r = shown ?? (await api<DeadLetterRecord>("GET", path));
          if (r.state === "open" && !(await confirmed(await abandonQuestion(r)))) return;
        }
        await api("POST", `${path}/${verb}`, { note: note.value.trim() });
        toast(`Record ${verb === "resolve" ? "resolved" : "abandoned"}`);
        await refreshNow();
      },
      { class: verb === "abandon" ? "danger" : null },
    );
  page.append(
    h(
      "p",
      {},
      from
        ? link(`/dlq?endpoint=${seg(from)}`, "← Dead letters of this endpoint")
        : link("/dlq", "← Dead letters"),
    ),
    h("h1", {}, "Dead-letter record ", h("code", {}, p.id!)),
    head,
    h(
      "div",
      { class: "card" },
      action("Replay now", async () => {
        const out = await api<{ result: string; detail: string | null }>(
          "POST",
          `${path}/replay`,
          {},
        );
        toast(`Replay ${out.result}${out.detail ? `: ${withLocalTimes(out.detail)}` : ""}`);
        await refreshNow();
      }),
      field("Note", note, "Required to resolve or abandon"),
      h("div", { class: "row" }, decide("resolve"), decide("abandon")),
    ),
  );
  await live(
    head,
    async () => {
      const { value, text } = await getWithText<DeadLetterRecord>(path);
      shown = value;
      return { ...value, text };
    },
    (r) => [
      h(
        "dl",
        { class: "facts" },
        h("dt", {}, "State"),
        h("dd", {}, stateBadge(r.state)),
        h("dt", {}, "Endpoint"),
        h("dd", {}, link(`/app/${r.appId}/endpoint/${r.endpointId}`, r.endpointId)),
        h("dt", {}, "Message"),
        h("dd", {}, link(`/app/${r.appId}/message/${r.messageId}`, r.messageId)),
        h("dt", {}, "Failure"),
        h("dd", {}, `${r.failureClass}: ${unitsKept(failureWords(r.reason))}`),
        h("dt", {}, "Replays"),
        h("dd", {}, String(r.replayCount)),
      ),
      h("h2", {}, "Payload"),
      ...payloadView(r.text),
      table(
        "Every attempt, original and replays",
        ["When", "Trigger", "Result", "Duration", "Response"],
        r.attempts.map((a) => {
          const view = { ...a, msgId: r.messageId };
          return [
            time(a.at),
            a.trigger,
            `${attemptResult(view)} (${a.outcome.replace("_", " ")})` + retryAfterMark(a),
            latency(a.durationMs),
            responseCell(view),
          ];
        }),
      ),
      table(
        "History",
        ["When", "Who", "What", "Result", "Note"],
        r.history.map((e) => [
          time(e.at),
          e.actor,
          e.action.replace("_", " "),
          unitsKept(withLocalTimes(failureWords(e.result))),
          e.note ?? "",
        ]),
      ),
    ],
  );
}
