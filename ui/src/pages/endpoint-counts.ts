/**
 * The endpoint page's message counts: of the messages created in the last 24 hours, how many wait
 * for this endpoint, are being sent to it, were delivered or were dead-lettered there, each counted
 * once by its latest delivery (the API's endpoint stats); how many wait now whatever their age
 * (the window leaves out those of a long outage, still waiting days on), and why they wait when
 * the endpoint itself holds them back.
 */
import { api } from "../api.js";
import { h, link } from "../dom.js";
import { plural, until } from "../format.js";
import { atMostEvery } from "../live.js";
import type { Endpoint, EndpointStats } from "../types.js";
import { circuitBadge } from "./health.js";

/** The window counted (the API's default, the day before now on hookline's clock), as said. */
export const WINDOW_WORDS = "last 24 hours";

/**
 * How often the counts are read: counting reads every message of the window (docs/api.md), too
 * much for the page's 2 s refresh on a busy endpoint.
 */
export const COUNTS_EVERY_MS = 10_000;

/** What the counts show: the stats, and what of the endpoint holds its waiting messages back. */
export interface Counts {
  stats: EndpointStats;
  held: Pick<Endpoint, "disabled" | "disabledReason"> & {
    circuit: Pick<Endpoint["circuit"], "state" | "nextProbeAt">;
  };
}

/**
 * Reads the endpoint's stats over the window, at most every {@link COUNTS_EVERY_MS}. No `since`:
 * hookline's default is the last day by its own clock; one from this browser's clock counted
 * another window (none at all from a clock a day ahead) under a heading saying the last 24 hours.
 */
export const countsOf = (path: string): (() => Promise<EndpointStats>) =>
  atMostEvery(COUNTS_EVERY_MS, () => api<EndpointStats>("GET", `${path}/stats`));

/** What of `ep` holds its waiting messages back, as {@link Counts} carries it. */
export const heldOf = (ep: Endpoint): Counts["held"] => ({
  disabled: ep.disabled,
  disabledReason: ep.disabledReason ?? null,
  circuit: { state: ep.circuit.state, nextProbeAt: ep.circuit.nextProbeAt },
});

/** Why the waiting messages wait, when the endpoint holds them back; nothing otherwise. */
function whyWaiting(held: Counts["held"]): Node[] {
  if (held.disabled) {
    return [
      document.createTextNode(" · "),
      h("span", { class: "badge muted" }, "Endpoint disabled"),
      h(
        "span",
        {},
        ": each is given up when its next attempt comes while the endpoint is disabled, and " +
          "goes as planned if it is enabled again first.",
      ),
    ];
  }
  const c = held.circuit;
  if (c.state === "closed") return [];
  const why =
    c.state === "open"
      ? [
          ": held back after repeated failures; they go out once a probe gets through",
          c.nextProbeAt
            ? [" (next probe ", until(c.nextProbeAt, { inParentheses: true }), ")"]
            : "",
          ".",
        ]
      : ": held back while a few at a time test the endpoint, its probe having got through.";
  return [document.createTextNode(" · "), circuitBadge(c.state), h("span", {}, why)];
}

/** The deliveries waiting now, as a number or, at the API's bound, "10,000 or more". */
const waitingNow = ({ count, orMore }: EndpointStats["pendingNow"]): string =>
  `${count.toLocaleString("en-US")}${orMore ? " or more" : ""}`;

/**
 * In the portal, beside the dead-lettered count: the portal has no dead-letter queue, so a
 * customer learns there how the messages hookline gave up on reach the endpoint once it is fixed.
 */
const RESEND_THEM =
  "hookline stopped trying these: once the endpoint is fixed (and enabled, if it is disabled), " +
  "send each again with Resend to this endpoint on its message (the failed attempts below " +
  "lead to those it tried)";

/**
 * The counts as a list of labelled numbers; the dead-lettered one links to `deadLetters` (the
 * console's dead-letter queue of this endpoint) when there is such a page for the reader. The
 * link is there whatever the count: the count is of the window's messages, and the queue's open
 * records may all be older (an outage longer than a day showed "0" and no way to them).
 */
export function countsView({ stats, held }: Counts, deadLetters: string | null): Node[] {
  const n = (count: number) => h("span", { class: "count" }, String(count));
  return [
    h(
      "dl",
      { class: "facts", "data-testid": "message-counts" },
      h("dt", {}, "Waiting"),
      h("dd", {}, n(stats.pending)),
      h("dt", {}, "Waiting now, of any age"),
      h(
        "dd",
        {},
        h("span", { class: "count" }, waitingNow(stats.pendingNow)),
        ...(stats.pendingNow.count > 0 ? whyWaiting(held) : []),
      ),
      h("dt", {}, "In flight"),
      h("dd", {}, n(stats.sending)),
      h("dt", {}, "Delivered"),
      h("dd", {}, n(stats.success)),
      h("dt", {}, "Dead-lettered"),
      h(
        "dd",
        {},
        n(stats.fail),
        deadLetters
          ? [" · ", link(deadLetters, "its open records in the dead-letter queue, of any age")]
          : stats.fail > 0
            ? ` · ${RESEND_THEM}`
            : "",
      ),
    ),
    h(
      "p",
      { class: "hint" },
      `Each message created in the ${WINDOW_WORDS} is counted once, by where its latest delivery ` +
        `to this endpoint stands (a resend's or a replay's, if any). Waiting now counts every ` +
        `delivery to it still waiting, however old its message (a long outage's are older than ` +
        `the window), up to ${stats.pendingNow.upTo.toLocaleString("en-US")}. ` +
        (deadLetters
          ? `Dead-lettered counts the window's messages given up on here, and not sent since ` +
            `(their record open, resolved or abandoned, or none kept past the dead-letter depth ` +
            `cap); the dead-letter queue lists the records open now, of any age`
          : `Dead-lettered counts the window's messages hookline gave up on here and has not ` +
            `sent since`) +
        `. Read every ${plural(COUNTS_EVERY_MS / 1000, "second")}.`,
    ),
  ];
}
