/**
 * A long list read a page at a time: a "More" button adds the next page, and the live refresh
 * keeps every page already shown. `path` gives the list's address with its query (page size and
 * filters) each time it is read, so a new search starts again from one page ({@link reset}).
 */
import { firstPages, type ListOut } from "./api.js";
import { action, h } from "./dom.js";
import { refreshNow } from "./live.js";

export function pagedList<T>(path: () => string, label: string, key: string) {
  let pages = 1;
  const more = action(
    label,
    async () => {
      // The list the button extends: when the last page is in, the button goes, and focus goes to
      // the list (not to the top of the page).
      const list = more.parentElement?.parentElement;
      pages += 1;
      await refreshNow();
      if (!more.isConnected && list?.isConnected && document.activeElement === document.body) {
        list.tabIndex = -1;
        list.focus({ preventScroll: true });
      }
    },
    { "data-key": key },
  );
  return {
    /** Every page shown so far, as one list (`done` once nothing is left). */
    load: (): Promise<ListOut<T>> => firstPages<T>(path(), pages),
    /** As many pages of another list that pages alongside this one (the same order and size). */
    loadAlongside: <U>(other: string): Promise<ListOut<U>> => firstPages<U>(other, pages),
    /** Back to the first page (a new search). */
    reset: (): void => {
      pages = 1;
    },
    /** The "More" button, while more is left. */
    more: (done: boolean): Node[] => (done ? [] : [h("p", {}, more)]),
  };
}
