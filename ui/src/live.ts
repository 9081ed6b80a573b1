/**
 * Live pages by polling: each page registers its refreshers; the router runs them every two seconds
 * while the page is shown and the tab is visible, and drops them when the page changes. A region
 * is redrawn only when its data changed, so focus and scroll stay put on a quiet page.
 */
import { ApiError } from "./api.js";
import { focusedKey, replaceKeeping, toast } from "./dom.js";
import { refreshRelativeTimes } from "./format.js";

export const POLL_MS = 2_000;
let refreshers: { region: HTMLElement; refresh: (poll: boolean) => Promise<void> }[] = [];
let timer: number | undefined;
let onGone: () => void = () => {};

/** What to do when what the page shows is not there any more (see {@link startPolling}). */
export const whenGone = (fn: () => void): void => {
  onGone = fn;
};

/**
 * Fills `region` from `load`, again on every poll when the answer changes. `load` is told whether
 * a poll asks (a list may then read only what changes most, see paging.ts) or an action.
 */
export async function live<T>(
  region: HTMLElement,
  load: (poll: boolean) => Promise<T>,
  render: (data: T) => Node | Node[],
): Promise<void> {
  let last = "";
  // Reads overlap (a poll under way when an action or a new search reads again): an answer to an
  // earlier read that comes in after a later one was drawn is stale, and is dropped. Drawn, it
  // showed the old list (the search not applied, a deleted row back) until the next poll.
  let started = 0;
  let drawn = 0;
  const refresh = async (poll: boolean) => {
    const read = ++started;
    const data = await load(poll);
    if (read < drawn) return;
    drawn = read;
    const key = JSON.stringify(data);
    if (key === last) return;
    last = key;
    const focused = focusedKey();
    const out = render(data);
    replaceKeeping(region, focused, Array.isArray(out) ? out : [out]);
    region.setAttribute("data-loaded", "true");
  };
  refreshers.push({ region, refresh });
  await refresh(false);
}

/**
 * `load`, asked again only once `ms` have passed since its last answer; until then its last
 * answer: for a read too costly to repeat at every poll. Callers asking while it is under way
 * share it (two regions of a page refreshed together read it once).
 */
export function atMostEvery<T>(ms: number, load: () => Promise<T>): () => Promise<T> {
  let last: { at: number; value: T } | null = null;
  let reading: Promise<T> | null = null;
  return async () => {
    if (last && performance.now() - last.at < ms) return last.value;
    reading ??= load()
      .then((value) => {
        last = { at: performance.now(), value };
        return value;
      })
      .finally(() => {
        reading = null;
      });
    return reading;
  };
}

/**
 * Runs `check` at every poll while `region`'s page is shown: for words that change with the clock
 * alone, not with what hookline answers (a replaced secret whose time to sign has passed).
 */
export function atEveryPoll(region: HTMLElement, check: () => void): void {
  refreshers.push({ region, refresh: () => Promise.resolve(check()) });
}

/** Forgets the previous page's refreshers (called on every navigation). */
export function resetLive(): void {
  refreshers = [];
}

/**
 * Forgets the refreshers of a page that is not shown after all: the reader moved on while it
 * loaded, or it failed part way. Registered after the navigation's reset, they would otherwise
 * run with the next page's.
 */
export function dropLive(page: Node): void {
  refreshers = refreshers.filter((r) => !page.contains(r.region));
}

/** Runs every refresher now (after an action, so its result shows at once). */
export async function refreshNow(): Promise<void> {
  await Promise.all(refreshers.map((r) => r.refresh(false)));
}

/**
 * Starts the poll loop; a failing poll shows why and tries again next time, and one that finds
 * the page's data gone (404) has the page loaded again. Relative times ("in 12 s") move on at
 * every tick, whether or not the data changed.
 */
export function startPolling(): void {
  if (timer !== undefined) return;
  const tick = async () => {
    if (document.visibilityState === "visible") {
      refreshRelativeTimes();
      try {
        await Promise.all(refreshers.map((r) => r.refresh(true)));
      } catch (err) {
        // Deleted meanwhile (in another tab, or through the API): the page is loaded again and
        // says so once, instead of showing it as it was and failing every update.
        if (err instanceof ApiError && err.status === 404) onGone();
        else {
          const why = err instanceof Error ? err.message : String(err);
          toast(`Live update failed: ${why}`, true, { again: "quiet" });
        }
      }
    }
    timer = window.setTimeout(tick, POLL_MS);
  };
  timer = window.setTimeout(tick, POLL_MS);
}
