/**
 * An application's message log (searchable by event type, or by message or event id), each
 * message with where its deliveries stand, and one message: its payload and, per endpoint, its
 * attempts as a timeline, with resend.
 */
import { api, ApiError, everyPage, getWithText, maybe, seg, type ListOut } from "../api.js";
import { action, field, h, link, replace, table, toast } from "../dom.js";
import {
  ago,
  isoOf,
  latency,
  localInput,
  localZone,
  plural,
  startOf,
  time,
  unitsKept,
  until,
} from "../format.js";
import { live, refreshNow } from "../live.js";
import { pagedList, pagesAt } from "../paging.js";
import { addressQuery, setAddressQuery } from "../address.js";
import type { Ctx } from "../routes.js";
import type {
  App,
  AskedWait,
  Attempt,
  DeadLetter,
  DeliveryStatus,
  Endpoint,
  Message,
} from "../types.js";
import {
  attemptDetails,
  attemptResult,
  failureWords,
  payloadView,
  resultNote,
  viewOf,
} from "./attempt.js";
import { nextAttemptAskedFor, retryAfterMark } from "./retry-after.js";
import { namedTypes, typesOf } from "./endpoints.js";
import { circuitBadge, disabledNote, heldBy } from "./health.js";

/** How often a message's page reads the application's endpoints again (see appEndpoints). */
const ENDPOINTS_EVERY_MS = 30_000;

/** A datetime-local value for an ISO time from the address, or "" for none (or a bad one). */
const fieldTime = (iso: string | null): string => {
  const ms = iso ? Date.parse(iso) : NaN;
  return Number.isFinite(ms) ? localInput(ms) : "";
};

export async function renderMessages(page: HTMLElement, p: Record<string, string>): Promise<void> {
  const app = await api<App>("GET", `/api/v1/app/${seg(p.app!)}`);
  const base = `/api/v1/app/${seg(app.id)}/msg`;
  const types = h("input", { name: "eventTypes", placeholder: "e.g. invoice.paid" });
  const after = h("input", { type: "datetime-local", name: "after", step: 1 });
  const before = h("input", { type: "datetime-local", name: "before", step: 1 });
  const id = h("input", { name: "id", placeholder: "msg_… or your event id" });
  const problem = h("div");
  // The search in force is the address's query, in the API's own terms (event_types, after,
  // before): a link to it, a bookmark, a reload and Back from a message all show what was
  // searched, not every message with the fields emptied.
  const shown = addressQuery();
  types.value = shown.getAll("event_types").join(" ");
  after.value = fieldTime(shown.get("after"));
  before.value = fieldTime(shown.get("before"));
  const filterOf = (): URLSearchParams => {
    const q = new URLSearchParams();
    // Separated by spaces or commas, as in the endpoint forms; one event_types each, as Svix.
    for (const t of typesOf(types.value) ?? []) q.append("event_types", t);
    if (after.value) q.set("after", isoOf(after.value)!);
    if (before.value) q.set("before", isoOf(before.value)!);
    return q;
  };
  const and = (q: URLSearchParams): string => (q.toString() ? `&${q.toString()}` : "");
  let filter = filterOf();
  const messages = pagedList<Message>(
    pagesAt(() => `${base}?limit=50&with_content=false&with_status=true${and(filter)}`),
    "More messages",
    "more-messages",
  );
  const search = h(
    "form",
    { class: "card inline", role: "search" },
    field("Event types", types, "Separated by commas or spaces"),
    // The fields are read in the browser's time zone: said, so a time copied from a receiver's
    // logs (often UTC) is not searched hours off.
    field("Sent after", after, `Your time zone: ${localZone()}`),
    field("Sent before", before, `Your time zone: ${localZone()}`),
    field("Message or event id", id),
    h("button", { type: "submit" }, "Search"),
    problem,
  );
  const refused = (err: Error, wanted: string[]) =>
    replace(
      problem,
      h("p", { class: "error", role: "alert" }, `Not searched: ${namedTypes(err.message, wanted)}`),
    );
  search.addEventListener("submit", (e) => {
    e.preventDefault();
    if (id.value.trim()) {
      void maybe<Message>(`${base}/${seg(id.value.trim())}`)
        .then((m) => {
          if (m) location.hash = `#/app/${app.id}/message/${m.id}`;
          else toast(`No message ${id.value.trim()} in ${app.name}`, true);
        })
        // An id the API refuses (too long) or a failed request is said too, not dropped.
        .catch((err: Error) => toast(err.message, true));
      return;
    }
    const wanted = typesOf(types.value) ?? [];
    const next = filterOf();
    // Asked once before it becomes the list's filter: a filter the API refuses is said here,
    // once, instead of failing every live update while the previous results stay on show.
    void api("GET", `${base}?limit=1&with_content=false${and(next)}`)
      .then(async () => {
        replace(problem);
        filter = next;
        if (list.isConnected) setAddressQuery(next);
        messages.reset();
        await refreshNow();
      })
      .catch((err: Error) => refused(err, wanted));
  });
  const list = h("section", { "aria-label": "Messages" });
  page.append(
    h("p", {}, link(`/app/${app.id}/endpoints`, `← Endpoints of ${app.name}`)),
    h("h1", {}, `Messages of ${app.name}`),
    search,
    list,
  );
  // A search in the address the API refuses (a link edited by hand, an event type since made
  // invalid) is said under the form, as a submitted one is, and every message is listed: as the
  // list's filter it failed the whole page, leaving no form to change it.
  if (filter.toString()) {
    await api("GET", `${base}?limit=1&with_content=false${and(filter)}`).catch((err: Error) => {
      if (!(err instanceof ApiError) || err.status === 0 || err.status >= 500) throw err;
      refused(err, typesOf(types.value) ?? []);
      filter = new URLSearchParams();
    });
  }
  // Whether a search is in force is part of what is drawn: its empty list reads differently.
  const load = async (poll: boolean) => ({
    ...(await messages.load(poll)),
    searched: filter.toString() !== "",
  });
  await live(list, load, (msgs) => [
    table(
      "Newest messages first",
      ["When", "Event type", "Message", "Deliveries", "Event id"],
      msgs.data.map((m) => [
        ago(m.timestamp),
        m.eventType,
        link(`/app/${app.id}/message/${m.id}`, h("code", {}, m.id), {
          "data-key": `msg-${m.id}`,
        }),
        m.deliveryStatus ? deliveries(m.deliveryStatus) : "—",
        m.eventId ?? "—",
      ]),
      // A search that found nothing says so, not that the application has no messages yet.
      msgs.searched ? "No message matches this search." : "No messages yet.",
    ),
    ...messages.more(msgs.done),
  ]);
}

const COUNTED = ["success", "pending", "sending", "fail"] as const;

/**
 * A message's deliveries at a glance: the badge of the endpoint page's statuses that sums them up
 * (any failure first), and how many endpoints stand at each when they do not all stand alike.
 */
function deliveries(s: DeliveryStatus): HTMLElement {
  if (s.statusText === "none") return h("span", { class: "badge muted" }, "no endpoints");
  const counts = COUNTED.filter((k) => s[k] > 0);
  return h(
    "span",
    {},
    h("span", { class: `badge status-${s.statusText}` }, s.statusText),
    counts.length > 1 ? ` (${counts.map((k) => `${s[k]} ${k}`).join(", ")})` : "",
  );
}

interface Destination {
  id: string;
  url: string;
  disabled: boolean;
  disabledReason: string | null;
  circuit: Endpoint["circuit"];
  statusText: string;
  nextAttempt: string | null;
  /** hookline's delivery to this endpoint (its latest, after a resend). */
  delivery?: {
    id: string;
    state: string;
    origin: string;
    attemptCount: number;
    /** Why hookline gave up on it, as its dead-letter record or tombstone says (null: neither). */
    reason?: string | null;
    /** When hookline gives it up without another attempt, as things stand, and why. */
    endsUnsent?: { at: string; reason: string } | null;
  };
}

/**
 * Why hookline gave up on a delivery: a replay's or a permanent answer's failure as its last
 * attempt tells ("a permanent failure: the receiver answered HTTP 400"), else as its dead-letter
 * record says. The attempts alone made a delivery given up unsent (its endpoint disabled while a
 * retry waited, its retry window ended behind an open circuit) read as "no retry was left".
 */
function givenUpBecause(d: Destination, last: Attempt | undefined): string {
  const recorded = d.delivery?.reason;
  // A replay withdrawn unsent (its endpoint disabled while it waited) has no attempt of its own,
  // but the delivery it replays was sent: "it was never sent" denied the attempts listed below.
  if (d.delivery?.origin === "replay" && !d.delivery.attemptCount) {
    const why = recorded ? ` (${recorded})` : "";
    const before = last ? `; the last attempt before it: ${attemptResult(viewOf(last))}` : "";
    return `its replay from the dead-letter queue was not sent${why}${before}`;
  }
  if (!last || !d.delivery?.attemptCount) {
    return recorded ? `it was never sent (${recorded})` : "it was never sent";
  }
  const lastView = viewOf(last);
  const result = attemptResult(lastView);
  if (d.delivery.origin === "replay") {
    return `its replay from the dead-letter queue failed (${result})`;
  }
  if (last.outcome === "permanent") {
    // Only a status is the receiver's answer: an address hookline refuses reached no receiver.
    const what = lastView.status ? `the receiver answered ${result}` : result;
    return `a permanent failure: ${what}, which is not retried`;
  }
  if (recorded) return recorded;
  // Neither record nor tombstone left (retention took a closed record): the likeliest reason.
  return `no retry was left after ${plural(d.delivery.attemptCount, "attempt")} (the last: ${result})`;
}

/**
 * The dead-letter records of a message's deliveries, newest first, for the console (a portal link
 * cannot read the queue): one read for all its endpoints, at most one record per delivery. It read
 * the records of each endpoint and event type since the message, 250 of them, once per endpoint
 * given up on, and missed the message's record behind 250 others (an outage of hours).
 */
async function deadLettersOf(msg: Message): Promise<DeadLetter[]> {
  const path = `/api/v1/dlq?message_id=${seg(msg.id)}&limit=250`;
  return (await everyPage<DeadLetter>(path).catch(() => null))?.data ?? [];
}

/**
 * A destination's record: its latest delivery's, else (that delivery replayed a record, which
 * reopened it) the newest of its endpoint's.
 */
const recordOf = (records: DeadLetter[], d: Destination): DeadLetter | null =>
  records.find((r) => r.deliveryId === d.delivery?.id) ??
  records.find((r) => r.endpointId === d.id) ??
  null;

/** Where a delivery stands: given up (and why), retrying (and when), or its status. */
function standing(
  d: Destination,
  last: Attempt | undefined,
  record: DeadLetter | null | undefined,
): (Node | string)[] {
  const badge = h("span", { class: `badge status-${d.statusText}` }, d.statusText);
  if (d.delivery?.state === "dead") {
    const why = record ? record.reason : givenUpBecause(d, last);
    return [
      badge,
      h(
        "span",
        { class: "given-up" },
        h("strong", {}, " · hookline stopped trying"),
        `: ${unitsKept(failureWords(why))}. `,
        record
          ? [
              "It is in the dead-letter queue as ",
              link(`/dlq/${record.id}`, h("code", {}, record.id)),
              ` (${record.state}). `,
            ]
          : "",
        "Nothing more is sent unless it is resent.",
      ),
    ];
  }
  if (!d.nextAttempt) return [badge];
  // hookline sends a disabled endpoint nothing: a delivery still waiting there when its time comes
  // is given up (dead-lettered), not retried. "Retrying: next attempt in 3 min" promised a retry.
  if (d.disabled) {
    const failed = d.delivery?.attemptCount
      ? ` · ${plural(d.delivery.attemptCount, "attempt")} failed: next attempt `
      : " · next attempt ";
    return [
      badge,
      failed,
      until(d.nextAttempt),
      " if the endpoint is enabled again by then; if not, hookline gives it up then",
    ];
  }
  // Its circuit's probe comes past its retry window: when its own time comes, hookline gives it up
  // there and then. "Next attempt in 30 min", at the probe, promised an attempt never made.
  const ends = d.delivery?.endsUnsent;
  if (ends) {
    return [
      badge,
      ` · ${plural(d.delivery!.attemptCount, "attempt")} failed: hookline gives it up `,
      until(ends.at),
      `, unsent (${unitsKept(ends.reason)})`,
    ];
  }
  const retrying = d.delivery?.attemptCount
    ? ` · ${plural(d.delivery.attemptCount, "attempt")} failed, retrying: next attempt `
    : " · next attempt ";
  const asked = d.delivery?.attemptCount && last ? setByRetryAfter(d, last) : null;
  return [badge, retrying, until(d.nextAttempt), asked ? nextAttemptAskedFor(asked) : ""];
}

/** Slack for the time a Retry-After set: the answer's time is the attempt's plus its duration. */
const SET_BY_SLACK_MS = 1000;

/**
 * The attempt's Retry-After, when it still sets the next attempt's time: none once something else
 * moved it (the circuit's probe, a resend bringing the delivery forward, a probe that held it and
 * then went through), which the words would misname.
 */
function setByRetryAfter(d: Destination, last: Attempt): AskedWait | null {
  const ra = last.retryAfter;
  if (!ra || !d.nextAttempt || atProbe(d)) return null;
  const setFor = Date.parse(last.timestamp) + last.responseDurationMs + ra.waitSeconds * 1000;
  const off = Date.parse(d.nextAttempt) - setFor;
  return off > -SET_BY_SLACK_MS && off < SET_BY_SLACK_MS ? ra : null;
}

/** Whether the delivery's next attempt is its circuit's probe (the API says it so when later). */
const atProbe = (d: Destination): boolean =>
  d.nextAttempt !== null &&
  d.circuit.nextProbeAt !== null &&
  Date.parse(d.nextAttempt) === Date.parse(d.circuit.nextProbeAt);

/**
 * What holds a waiting delivery back: its endpoint's circuit, and its probe, unless the delivery is
 * given up before the probe, which it then does not wait for (the circuit's badge alone). The
 * probe's time is left out where it is the next attempt's, said just before: "next attempt in 1 h
 * (…) · Circuit Open waits for the circuit's probe", not the same time twice.
 */
const heldAt = (d: Destination): Node[] =>
  d.delivery?.endsUnsent && d.circuit.state !== "closed"
    ? [document.createTextNode(" · "), circuitBadge(d.circuit.state)]
    : heldBy(d.circuit, { probeTimeSaid: atProbe(d) });

/**
 * The tag hookline gives a test event (an endpoint page's "Send test event"), which goes to that
 * endpoint only, whatever the others take.
 */
const TEST_EVENT_TAG = "hookline.test";

const isTestEvent = (msg: Message): boolean => msg.tags?.includes(TEST_EVENT_TAG) ?? false;

/** The list's words: "eu", "eu or us", "eu, us or fr". */
const either = (names: string[]): string =>
  names.length > 1 ? `${names.slice(0, -1).join(", ")} or ${names.at(-1)!}` : (names[0] ?? "");

/**
 * Why an endpoint does not take a message, as the endpoint stands now: hookline chose the
 * message's endpoints when it accepted it, and keeps no record of why one was left out, but an
 * endpoint that filters the message out now, or did not exist then, says it; one that would take
 * it now was disabled or filtered otherwise then. The customer asking "why did it never come?"
 * was given the three possible reasons for every endpoint alike.
 */
function whyNotSent(e: Endpoint, msg: Message): string | null {
  // Said once above the list: its filters, or when it was added, are not why.
  if (isTestEvent(msg)) return null;
  const why: string[] = [];
  if (Date.parse(e.createdAt) > Date.parse(msg.timestamp)) {
    why.push("it was added after the message was accepted");
  }
  if (e.filterTypes?.length && !e.filterTypes.includes(msg.eventType)) {
    why.push(`it takes only ${either(e.filterTypes)}, not ${msg.eventType}`);
  }
  if (e.channels?.length && !e.channels.some((c) => msg.channels?.includes(c))) {
    why.push(
      `it takes only messages sent on ${either(e.channels)}, and this one was sent on ` +
        (msg.channels?.length ? either(msg.channels) : "no channel"),
    );
  }
  if (why.length) return why.join("; ");
  // A disabled endpoint's badge says why, and that nothing is sent to it.
  if (e.disabled) return null;
  return (
    "it would take it now; when the message was accepted, it was disabled or took other event " +
    "types or channels"
  );
}

/**
 * The application's endpoints a message did not go to, each saying why and with a button that
 * sends it there (a resend, which goes to an endpoint as its filters are now), save a disabled one.
 */
function notSentTo(others: Endpoint[], msg: Message, appPath: string, appId: string): HTMLElement {
  return h(
    "article",
    { class: "card timeline", "aria-labelledby": "not-sent-title" },
    h("h3", { id: "not-sent-title" }, "Endpoints it did not go to"),
    h(
      "p",
      {},
      isTestEvent(msg)
        ? "This is a test event, sent from one endpoint's page to that endpoint only. "
        : "hookline chose the endpoints of this message when it accepted it: these were " +
            "disabled, did not take its event type or channels, or did not exist yet. Each says " +
            "why, as it stands now. ",
      "Sent from here, it goes to the endpoint as it is now, whatever its event types and " +
        "channels.",
    ),
    h(
      "ul",
      {},
      others.map((e) => {
        const why = whyNotSent(e, msg);
        return h(
          "li",
          {},
          link(`/app/${appId}/endpoint/${e.id}`, e.url, { "data-key": `other-${e.id}` }),
          why ? `: ${why}. ` : " ",
          e.disabled
            ? h("span", { class: "badge muted" }, "Endpoint disabled")
            : action(
                "Send to this endpoint",
                async () => {
                  await api("POST", `${appPath}/msg/${seg(msg.id)}/endpoint/${seg(e.id)}/resend`);
                  toast("Send queued");
                  await refreshNow();
                },
                {
                  // The resend button's key: once sent, the endpoint's card takes this one's place
                  // and the focus goes on to its resend button, not back to the top of the page.
                  "data-key": `resend-${e.id}`,
                  "aria-label": `Send to this endpoint, ${e.url}`,
                },
              ),
        );
      }),
    ),
  );
}

export async function renderMessage(
  page: HTMLElement,
  p: Record<string, string>,
  ctx: Ctx,
): Promise<void> {
  const app = await api<App>("GET", `/api/v1/app/${seg(p.app!)}`);
  const appPath = `/api/v1/app/${seg(app.id)}`;
  const { value: msg, text } = await getWithText<Message>(`${appPath}/msg/${seg(p.msg!)}`);
  const timeline = h("section", { "aria-labelledby": "timeline-title" });
  // Each endpoint's card stands alone, so the endpoints page on with "More" as other lists do.
  let endpointsRead: { at: number; list: Endpoint[] } | null = null;
  const appEndpoints = async (): Promise<Endpoint[]> => {
    if (endpointsRead && performance.now() - endpointsRead.at < ENDPOINTS_EVERY_MS)
      return endpointsRead.list;
    const list = (await api<ListOut<Endpoint>>("GET", `${appPath}/endpoint?limit=250`)).data;
    endpointsRead = { at: performance.now(), list };
    return list;
  };
  const destinations = pagedList<Destination>(
    pagesAt(() => `${appPath}/msg/${seg(msg.id)}/endpoint?limit=250`),
    "More endpoints",
    "more-endpoints",
  );
  page.append(
    h("p", {}, link(`/app/${app.id}/messages`, `← Messages of ${app.name}`)),
    h("h1", {}, `${msg.eventType} `, h("code", {}, msg.id)),
    h("p", {}, `Accepted ${time(msg.timestamp)}`, msg.eventId ? ` · event id ${msg.eventId}` : ""),
    h("h2", {}, "Payload"),
    ...payloadView(text),
    h("h2", { id: "timeline-title" }, "Deliveries"),
    timeline,
  );
  await live(
    timeline,
    async (poll) => {
      const dests = await destinations.load(poll);
      // Every page, not a "More" button: the attempts come newest first across all endpoints,
      // and a page's end would cut some endpoint's timeline short without saying so.
      const attempts = await everyPage<Attempt>(`${appPath}/attempt/msg/${seg(msg.id)}?limit=250`);
      // In the console, a delivery given up on is found in the dead-letter queue, which says why.
      const dead = ctx.portal ? [] : dests.data.filter((d) => d.delivery?.state === "dead");
      const found = dead.length ? await deadLettersOf(msg) : [];
      const records = Object.fromEntries(dead.map((d) => [d.id, recordOf(found, d)]));
      // The application's other endpoints, once every endpoint the message went to is read: the
      // one a customer expected it at may be among them (disabled, or not taking its event type,
      // when it was accepted), and a send from here is how it reaches that endpoint.
      // Read every 30 s, not at each refresh: up to 250 whole endpoints every 2 s for a list that
      // changes when someone adds or changes an endpoint. An endpoint sent to moves from it to the
      // timeline at the next refresh all the same, as the message's destinations are read each time.
      const all = dests.done ? await appEndpoints() : [];
      const others = all.filter((e) => !dests.data.some((d) => d.id === e.id));
      return { dests, attempts, records, others };
    },
    ({ dests, attempts, records, others }) => [
      ...(dests.data.length === 0
        ? [h("p", {}, "hookline sent this message to no endpoint.")]
        : []),
      ...dests.data.map((d) =>
        h(
          "article",
          { class: "card timeline" },
          h(
            "h3",
            {},
            link(`/app/${app.id}/endpoint/${d.id}`, d.url, { "data-key": `dest-${d.id}` }),
          ),
          h(
            "p",
            {},
            standing(
              d,
              attempts.data.find((a) => a.endpointId === d.id),
              records[d.id],
            ),
            // A disabled endpoint is sent nothing, and a waiting delivery may be held by its
            // endpoint's circuit rather than by its retry: both come with the destination, so
            // saying so reads no endpoint (it read each one at every refresh, up to 250).
            d.disabled
              ? disabledNote(d.disabledReason)
              : [
                  d.statusText === "pending" ? heldAt(d) : "",
                  " ",
                  action(
                    "Resend to this endpoint",
                    async () => {
                      await api(
                        "POST",
                        `${appPath}/msg/${seg(msg.id)}/endpoint/${seg(d.id)}/resend`,
                      );
                      toast("Resend queued");
                      await refreshNow();
                    },
                    {
                      "data-key": `resend-${d.id}`,
                      // One per endpoint: a screen reader's list of buttons tells them apart.
                      "aria-label": `Resend to this endpoint, ${d.url}`,
                    },
                  ),
                ],
          ),
          h(
            "ol",
            {},
            attempts.data
              .filter((a) => a.endpointId === d.id)
              .reverse()
              .map((a) =>
                h(
                  "li",
                  { class: `outcome-${a.outcome}` },
                  h("strong", {}, time(a.timestamp)),
                  ` ${a.trigger}: ${attemptResult(viewOf(a))}`,
                  ` in ${latency(a.responseDurationMs)} (${a.outcome.replace("_", " ")})`,
                  retryAfterMark(a),
                  resultNote(viewOf(a)) ? ` ${resultNote(viewOf(a))}` : "",
                  a.response ? h("code", { class: "snippet" }, ` ${startOf(a.response, 120)}`) : "",
                  attemptDetails(viewOf(a)),
                ),
              ),
          ),
        ),
      ),
      ...destinations.more(dests.done),
      ...(others.length ? [notSentTo(others, msg, appPath, app.id)] : []),
    ],
  );
}
