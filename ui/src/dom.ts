/** A tiny DOM builder: the dashboard builds its pages with this instead of a framework. */

type Child = Node | string | number | null | undefined | false | Child[];
type Attrs = Record<string, string | number | boolean | null | undefined | EventListener>;

/** An element with attributes (`on…` keys become listeners) and children. */
export function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attrs: Attrs = {},
  ...children: Child[]
): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (value === null || value === undefined || value === false) continue;
    if (key.startsWith("on") && typeof value === "function") {
      el.addEventListener(key.slice(2), value);
    } else if (value === true) {
      el.setAttribute(key, "");
    } else {
      el.setAttribute(key, String(value));
    }
  }
  append(el, children);
  return el;
}

function append(el: Node, children: Child[]): void {
  for (const c of children) {
    if (c === null || c === undefined || c === false) continue;
    if (Array.isArray(c)) append(el, c);
    else el.appendChild(typeof c === "object" ? c : document.createTextNode(String(c)));
  }
}

/**
 * Replaces an element's content, keeping keyboard focus on the control that had it and keeping
 * open the folded details someone opened (both found again by their `data-key`).
 */
export function replace(el: Element, ...children: Child[]): void {
  replaceKeeping(el, focusedKey(), children);
}

/** The `data-key` of the control that has keyboard focus, if it has one. */
export const focusedKey = (): string | null | undefined =>
  document.activeElement?.getAttribute("data-key");

/**
 * {@link replace}, focus going back to the control keyed `focused`: the key is taken before the new
 * content is built, since building it may move a control that had focus (a "More" button kept
 * from one drawing to the next), which takes the focus off it.
 */
export function replaceKeeping(
  el: Element,
  focused: string | null | undefined,
  children: Child[],
): void {
  const open = [...el.querySelectorAll("details[open][data-key]")].map((d) =>
    d.getAttribute("data-key"),
  );
  el.replaceChildren();
  append(el, children);
  const find = (key: string) => el.querySelector(`[data-key="${CSS.escape(key)}"]`);
  for (const key of open) find(key!)?.setAttribute("open", "");
  if (focused) (find(focused) as HTMLElement | null)?.focus();
}

/** A labelled form field; the label is tied to the control by id. */
export function field(
  label: string,
  control: HTMLInputElement | HTMLSelectElement | HTMLTextAreaElement,
  hint?: string,
): HTMLElement {
  control.id ||= `f-${label.toLowerCase().replace(/[^a-z0-9]+/g, "-")}-${++fieldCount}`;
  const hintEl = hint ? h("small", { id: `${control.id}-hint` }, hint) : null;
  if (hintEl) control.setAttribute("aria-describedby", hintEl.id);
  return h("div", { class: "field" }, h("label", { for: control.id }, label), control, hintEl);
}
let fieldCount = 0;

/**
 * A handler that runs `run` once at a time, reporting failure in the toast: while it runs, the
 * `buttons` that start it are marked busy (`aria-disabled`) and a call meanwhile is ignored (a
 * double click or another Enter made what it asks for twice). Busy, not disabled: the browser
 * takes focus off a disabled button, and a keyboard user was left at the top of the page after
 * every action.
 */
function onceAtATime(
  buttons: () => readonly HTMLButtonElement[],
  run: () => Promise<unknown>,
): () => void {
  let running = false;
  return () => {
    if (running) return;
    running = true;
    const busy = buttons();
    for (const b of busy) b.setAttribute("aria-disabled", "true");
    void run()
      .catch((err: unknown) => toast(err instanceof Error ? err.message : String(err), true))
      .finally(() => {
        running = false;
        for (const b of busy) b.removeAttribute("aria-disabled");
      });
  };
}

/**
 * A button that runs an async action, once at a time (see {@link onceAtATime}). A button the
 * action's refresh redraws is found again by its `data-key` (see {@link replace}).
 */
export function action(
  label: string,
  run: () => Promise<unknown>,
  attrs: Attrs = {},
): HTMLButtonElement {
  const button = h("button", { type: "button", ...attrs }, label);
  button.addEventListener(
    "click",
    onceAtATime(() => [button], run),
  );
  return button;
}

/** Runs `run` when the form is sent, once at a time, its submit buttons busy meanwhile. */
export function onSubmit(form: HTMLFormElement, run: () => Promise<unknown>): void {
  const submit = onceAtATime(
    () => [...form.querySelectorAll<HTMLButtonElement>('button[type="submit"]')],
    run,
  );
  form.addEventListener("submit", (e) => {
    e.preventDefault();
    submit();
  });
}

/**
 * A short message read out by screen readers: what an action did politely, in the toast's status
 * region, and an error (an action or an update failed) at once, in its alert region. Both regions
 * are in the page from the start (a region added with its message is not announced), and only one
 * holds a message: the other is emptied, so an error is not left to be read again under a later
 * success. A message that hookline's updates tell again by themselves (every update failing alike)
 * is told `{ again: "quiet" }`: on show already, it is left as it is and only stays longer, where
 * written again it was announced every 2 s. An action's result is written each time: a second
 * press ending as the first did is news, and left as it was, it was not read out at all.
 */
export function toast(message: string, error = false, o: { again?: "quiet" } = {}): void {
  const [said, other] = [toastRegion(error), toastRegion(!error)];
  if (other.textContent) other.textContent = "";
  if (said.textContent !== message || o.again !== "quiet") said.textContent = message;
  window.clearTimeout(toastTimer);
  toastTimer = window.setTimeout(() => (said.textContent = ""), 8_000);
}
const toastRegion = (error: boolean): HTMLElement =>
  document.getElementById(error ? "toast-error" : "toast-said")!;
let toastTimer: number | undefined;

/**
 * A table with a caption and header row; rows are arrays of cells, or `empty` said without any. Each cell carries its column's
 * name (`data-label`), shown beside it when the table turns into cards at phone width. A column
 * named "" holds a row's buttons: its header is "Actions" to a screen reader only, so that the
 * buttons' cells are not announced under no column at all.
 */
export function table(
  caption: string,
  head: string[],
  rows: Child[][],
  empty = "Nothing here yet.",
): HTMLElement {
  return h(
    "div",
    { class: "table-wrap" },
    h(
      "table",
      {},
      h("caption", {}, caption),
      h(
        "thead",
        {},
        h(
          "tr",
          {},
          head.map((c) =>
            h("th", { scope: "col" }, c || h("span", { class: "visually-hidden" }, "Actions")),
          ),
        ),
      ),
      h(
        "tbody",
        {},
        rows.length
          ? rows.map((r) =>
              h(
                "tr",
                {},
                // One box per cell, so that a card shows the name and the whole value side by side.
                r.map((c, i) => h("td", { "data-label": head[i] }, h("div", {}, c))),
              ),
            )
          : h("tr", {}, h("td", { colspan: head.length, class: "empty" }, empty)),
      ),
    ),
  );
}

/** A link to a dashboard route (hash based, so the server sees only /ui/ or /portal/). */
export const link = (to: string, text: Child, attrs: Attrs = {}): HTMLAnchorElement =>
  h("a", { href: `#${to}`, ...attrs }, text);
