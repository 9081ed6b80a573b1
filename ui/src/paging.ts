/**
 * A long list read oldest first, a page of 250 at a time: a "More" button adds the next page, and
 * the live refresh keeps every page already shown.
 */
import { firstPages, type ListOut } from "./api.js";
import { action, h } from "./dom.js";
import { refreshNow } from "./live.js";

export function pagedList<T>(path: string, label: string, key: string) {
  let pages = 1;
  const more = action(
    label,
    async () => {
      pages += 1;
      await refreshNow();
    },
    { "data-key": key },
  );
  return {
    /** Every page shown so far, as one list (`done` once nothing is left). */
    load: (): Promise<ListOut<T>> => firstPages<T>(`${path}?limit=250`, pages),
    /** The "More" button, while more is left. */
    more: (done: boolean): Node[] => (done ? [] : [h("p", {}, more)]),
  };
}
