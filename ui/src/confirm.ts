/**
 * The question asked before an action that cannot be undone or that sends many requests to a
 * customer's endpoint (rotating a secret, deleting an endpoint, bulk replays, cancelling a replay
 * job, abandoning a dead-letter record), in the page itself. It was the browser's `confirm()`,
 * which a sandboxed iframe without `allow-modals` (how products commonly embed the portal) answers
 * "no" at once, showing nothing: the action then did nothing and said nothing. A `<dialog>` opened
 * with `showModal()` needs no sandbox flag, holds the focus and closes with Escape as `confirm()`
 * did.
 */
import { h } from "./dom.js";

/** What to ask: the question (the dialog's name), what follows (its description), the verb. */
export interface Question {
  question: string;
  detail: string;
  /** The action's own words, on the button that goes ahead ("Delete endpoint"). */
  verb: string;
  /** Marks the verb's button as the danger it is, as the button that asked. */
  danger?: boolean;
  /** The safe answer's words: "Cancel", unless the verb is a cancel itself ("Keep job"). */
  keep?: string;
}

let asked = 0;

/**
 * Asks `q` in a modal dialog, and resolves true if the verb's button is pressed, false on Cancel
 * (or `q.keep`), Escape or the page under it changing (another route, or the same one drawn
 * again). Focus starts on Cancel, the safe answer, and goes back to the control that had it once
 * answered. The answer is taken once: a second Enter finds the dialog gone, its focus back on the
 * button that asked, which is busy while its action runs.
 */
export function confirmed(q: Question): Promise<boolean> {
  const n = ++asked;
  const opener = document.activeElement instanceof HTMLElement ? document.activeElement : null;
  // A button in a region an update redrew meanwhile (a dead-letter group's) is found again by key.
  const key = opener?.getAttribute("data-key");
  const cancel = h("button", { type: "button", class: "secondary" }, q.keep ?? "Cancel");
  const go = h("button", { type: "button", class: q.danger ? "danger" : null }, q.verb);
  const dialog = h(
    "dialog",
    {
      class: "confirm",
      "aria-labelledby": `confirm-${n}`,
      "aria-describedby": `confirm-${n}-detail`,
    },
    h("p", { id: `confirm-${n}`, class: "question" }, q.question),
    h("p", { id: `confirm-${n}-detail` }, q.detail),
    h("div", { class: "row" }, cancel, go),
  );
  return new Promise((resolve) => {
    let answered = false;
    // Every page is drawn into #main (main.ts), and drawn again there without the address changing
    // when the session ends or what it showed was deleted: left open, the question stayed over the
    // page saying so, still offering to act on what the page had shown.
    const redrawn = new MutationObserver(() => answer(false));
    const answer = (yes: boolean) => {
      if (answered) return;
      answered = true;
      window.removeEventListener("hashchange", away);
      redrawn.disconnect();
      dialog.close();
      dialog.remove();
      const back = opener?.isConnected
        ? opener
        : key
          ? document.querySelector<HTMLElement>(`[data-key="${CSS.escape(key)}"]`)
          : null;
      back?.focus();
      resolve(yes);
    };
    const away = () => answer(false);
    cancel.addEventListener("click", () => answer(false));
    go.addEventListener("click", () => answer(true));
    // Escape closes a modal dialog by itself (firing "cancel" only when the browser allows).
    dialog.addEventListener("close", () => answer(false));
    window.addEventListener("hashchange", away);
    const main = document.getElementById("main");
    if (main) redrawn.observe(main, { childList: true });
    document.body.append(dialog);
    dialog.showModal();
    cancel.focus();
  });
}
