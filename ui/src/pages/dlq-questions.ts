/**
 * What the dead-letter pages ask before acting (ui/src/confirm.ts): a bulk replay sends many
 * requests to customers' endpoints, which cannot be taken back once sent; a cancelled job cannot
 * be started again; an abandoned record cannot be reopened or replayed. A single replay, resolving
 * a record (it can still be replayed) and anything reversible are not asked about.
 */
import { api, ApiError, seg, type ListOut } from "../api.js";
import type { Question } from "../confirm.js";
import { perSecond, plural, time } from "../format.js";
import type { DeadLetter, DeadLetterRecord, Endpoint, ReplayJob, SummaryRow } from "../types.js";

/** The most records a bulk replay's question counts one by one (one page of the list). */
const COUNTED = 250;

/** How a bulk replay sends its records, as the form or hookline's configuration set it. */
function howSent(canarySize?: number, ratePerSecond?: number): string {
  const canary =
    canarySize === undefined
      ? "a canary sample first"
      : canarySize === 0
        ? "without a canary"
        : `${canarySize} first as a canary`;
  const rate = ratePerSecond === undefined ? "the configured rate" : perSecond(ratePerSecond);
  return `A bulk replay job sends each again, ${canary}, at ${rate}; a request sent cannot be taken back.`;
}

/** Replaying a group of the summary: every open record of one failure class at one endpoint. */
export const groupReplayQuestion = (g: SummaryRow): Question => ({
  question: `Replay ${plural(g.open, `${g.failureClass} record`)} to ${g.url ?? g.endpointId}?`,
  detail: `Every open record of this group, as it stands when the job starts. ${howSent()}`,
  verb: "Replay group",
});

/** What the bulk replay form asks for. */
export interface WindowReplay {
  since?: string;
  until?: string;
  endpointId?: string;
  canarySize?: number;
  ratePerSecond?: number;
}

/**
 * The question before a bulk replay by time window, counting the records it would take now (the
 * open ones in the window, as a job selects them), or null when there are none: a job would end
 * at once having sent nothing. Counted past {@link COUNTED}, it says "more than".
 */
export async function windowReplayQuestion(r: WindowReplay): Promise<Question | null> {
  const query = new URLSearchParams({ state: "open", limit: String(COUNTED) });
  if (r.since) query.set("since", r.since);
  if (r.until) query.set("until", r.until);
  if (r.endpointId) query.set("endpoint_id", r.endpointId);
  const [open, summary] = await Promise.all([
    api<ListOut<DeadLetter>>("GET", `/api/v1/dlq?${query}`).catch(asTheJobsField),
    // Where each endpoint with open records is, by its URL.
    api<{ data: SummaryRow[] }>("GET", "/api/v1/dlq/summary"),
  ]);
  if (open.data.length === 0) return null;
  const urls = new Map(summary.data.map((g) => [g.endpointId, g.url ?? g.endpointId]));
  const endpoints = new Set(open.data.map((d) => d.endpointId));
  const count = open.done
    ? plural(open.data.length, "record")
    : `more than ${plural(COUNTED, "record")}`;
  const only = r.endpointId ?? (open.done && endpoints.size === 1 ? [...endpoints][0] : undefined);
  const to = only
    ? ` to ${urls.get(only) ?? only}`
    : open.done
      ? ` to ${plural(endpoints.size, "endpoint")}`
      : ", at every endpoint";
  return {
    question: `Replay ${count}${to}?`,
    detail: `The records open now that were ${windowOf(r)}. ${howSent(r.canarySize, r.ratePerSecond)}`,
    verb: "Start bulk replay",
  };
}

/**
 * The count's refusal of what the form sent (an endpoint's uid, not its id), naming the field as
 * the job's start names it: the list's query calls it `endpoint_id`, a word the form never shows.
 */
function asTheJobsField(err: unknown): never {
  if (!(err instanceof ApiError) || err.status !== 422) throw err;
  throw new ApiError(err.status, err.message.replace(/(^|; )endpoint_id:/g, "$1endpointId:"));
}

const windowOf = (r: WindowReplay): string =>
  `dead-lettered from ${r.since ? time(r.since) : "the start"} until ${r.until ? time(r.until) : "now"}`;

/** Says there is nothing to replay in the window (see {@link windowReplayQuestion}). */
export const nothingToReplay = (r: WindowReplay): string =>
  `No open record was ${windowOf(r)}${r.endpointId ? ` at endpoint ${r.endpointId}` : ""}: ` +
  "there is nothing to replay.";

/** Cancelling a scheduled or running job: what it leaves, and that it cannot be started again. */
export function cancelJobQuestion(j: ReplayJob, done: number): Question {
  const { total } = j.progress;
  const where =
    total === null
      ? "It has not selected its records yet: none of them is replayed."
      : `${done} of ${total} done. Replays queued and not yet sent are taken back (those being ` +
        "sent finish); their records, and those not reached, stay open.";
  return {
    question: `Cancel bulk replay ${j.id}?`,
    detail: `${where} A cancelled job cannot be started again: a new bulk replay would be needed.`,
    verb: "Cancel job",
    keep: "Keep job",
  };
}

/** Abandoning a record: hookline gives up on delivering its message to the endpoint, for good. */
export async function abandonQuestion(r: DeadLetterRecord): Promise<Question> {
  const ep = await api<Endpoint>(
    "GET",
    `/api/v1/app/${seg(r.appId)}/endpoint/${seg(r.endpointId)}`,
  );
  return {
    question: `Abandon ${r.id}?`,
    detail:
      `hookline gives up on delivering message ${r.messageId} to ${ep.url}: the record cannot ` +
      "be reopened, no bulk replay takes it, and it can be replayed only once resolved.",
    verb: "Abandon",
    danger: true,
  };
}
