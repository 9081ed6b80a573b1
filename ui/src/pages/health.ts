/** Pieces shared by the endpoint pages: the circuit badge and banners, and why deliveries wait. */
import { h, link } from "../dom.js";
import { ago, plural, time, unitsKept, until } from "../format.js";
import type { Circuit, CircuitState, Endpoint } from "../types.js";
import { failureWords } from "./attempt.js";

const WORDS: Record<CircuitState, string> = {
  closed: "Closed",
  open: "Open",
  "half-open": "Half-open",
};

/** The circuit state as a coloured badge with words (colour is never the only signal). */
export const circuitBadge = (state: CircuitState): HTMLElement =>
  h("span", { class: `badge circuit-${state}` }, `Circuit ${WORDS[state]}`);

/**
 * The banner shown while the circuit is not closed: since when the endpoint has been failing, why,
 * since when the circuit is as it is, and when the next probe runs, counted down from the probe's
 * time as the page updates. `nothingWaits`: no delivery waits for the endpoint, so none goes at the
 * probe's time; the probe is the next message to come, sent at once if that time has passed.
 */
export function circuitBanner(c: Circuit, { nothingWaits = false } = {}): HTMLElement | null {
  if (c.state === "closed") return null;
  const what =
    c.state === "open"
      ? "Deliveries to this endpoint are paused after repeated failures (circuit open)."
      : "The probe got through: a few deliveries at a time test this endpoint before the rest " +
        "resume (circuit half-open).";
  // Each reopening moves `since` on: when the circuit opened is since when the endpoint has been
  // failing, what its owner matches against their own server's logs. Said when it is not `since`.
  const opened = c.openedAt !== null && c.openedAt !== c.since ? c.openedAt : null;
  return h(
    "div",
    { class: `banner circuit-${c.state}`, role: "alert", "data-testid": "circuit-banner" },
    h("strong", {}, what),
    h(
      "p",
      {},
      opened
        ? [
            `Failing ${c.state === "open" ? "since" : "from"} ${time(opened)} (`,
            ago(opened, { exactBeside: true }),
            c.state === "open" ? "), when the circuit opened. " : ") until the probe got through. ",
          ]
        : "",
      // The reason names no wait (the API leaves out one an older hookline wrote in it): the
      // banner's own, counted down from the probe's time, is the only one it says.
      `Why: ${unitsKept(failureWords(c.reason ?? "repeated failures"))}. Since ${time(c.since)} (`,
      ago(c.since, { exactBeside: true }),
      ").",
      // A run of answers given up on at once (413, 422) opens the circuit with nothing left to
      // probe with: "Next probe now" stood for as long as no message came.
      c.nextProbeAt
        ? [
            c.state === "open" && nothingWaits
              ? " Next probe: the next message for this endpoint, as none waits now, sent once " +
                "the probe's time comes: "
              : " Next probe ",
            until(c.nextProbeAt, { exactBeside: true }),
            ` (${time(c.nextProbeAt)}).`,
          ]
        : "",
      c.reopenCount ? ` Reopened ${plural(c.reopenCount, "time")} in a row.` : "",
    ),
  );
}

/**
 * The banner of a disabled endpoint, shown instead of the circuit's: hookline sends it nothing, so
 * no probe is coming whatever the circuit says. How a message given up meanwhile goes out once the
 * endpoint is enabled depends on the reader: the console replays it from the dead-letter queue
 * (`deadLetters`, this endpoint's records there), the portal, which has no such queue (null), resends
 * it from its message.
 */
export const disabledBanner = (ep: Endpoint, deadLetters: string | null): HTMLElement =>
  h(
    "div",
    { class: "banner muted", role: "status", "data-testid": "disabled-banner" },
    h(
      "strong",
      {},
      "This endpoint is disabled: hookline sends it nothing until it is enabled again.",
    ),
    h(
      "p",
      {},
      `Why: ${ep.disabledReason ?? "it was disabled by hand"}. A message waiting for it is ` +
        "given up when its next attempt comes while the endpoint is disabled",
      deadLetters
        ? [
            ", and dead-lettered; once it is enabled, replay those from ",
            link(deadLetters, "the dead-letter queue"),
            ", or resend one from its message.",
          ]
        : "; once it is enabled, send each again with Resend to this endpoint on its message.",
      " Those still waiting when it is enabled again go as planned.",
    ),
  );

/**
 * Why a pending delivery to an endpoint waits, when its circuit holds it: "Circuit Open · waits
 * for the circuit's probe (in 4 min)". Nothing while the circuit is closed. `probeTimeSaid`: the
 * text before says the probe's time already (the delivery's next attempt is at the probe), so it
 * is not said again.
 */
export function heldBy(c: Endpoint["circuit"], { probeTimeSaid = false } = {}): Node[] {
  if (c.state === "closed") return [];
  const why =
    c.state === "open"
      ? [
          " waits for the circuit's probe",
          c.nextProbeAt && !probeTimeSaid
            ? [" (", until(c.nextProbeAt, { inParentheses: true }), ")"]
            : "",
        ]
      : " waits its turn: the probe got through, and a few deliveries at a time test the " +
        "endpoint before the rest go";
  return [document.createTextNode(" · "), circuitBadge(c.state), h("span", {}, why)];
}

/**
 * Why a message's delivery to a disabled endpoint goes nowhere, said where a resend would be
 * offered: hookline sends such an endpoint nothing, so a resend would only be dead-lettered.
 */
export const disabledNote = (reason: string | null): Node[] => [
  document.createTextNode(" · "),
  h("span", { class: "badge muted" }, "Endpoint disabled"),
  h(
    "span",
    {},
    " nothing is sent to it, a resend neither, until it is enabled. " +
      `Why: ${reason ?? "it was disabled by hand"}.`,
  ),
];
