/**
 * A long list read a page at a time: a "More" button adds the next page. The live refresh reads
 * the first page, where new rows come in, and keeps the pages after it as last read; the whole
 * list is read again every {@link WHOLE_LIST_EVERY_MS}, and at once after an action, a
 * new search or "More". It read every page shown at every refresh, 2 s apart: twenty pages of
 * messages were twenty requests, one after the other, again and again for as long as the page
 * stayed open.
 */
import { api, seg, type ListOut } from "./api.js";
import { action, h } from "./dom.js";
import { refreshNow } from "./live.js";

/** How long the rows after the first page may go without being read again. */
export const WHOLE_LIST_EVERY_MS = 30_000;

/** One page of a list: the first (`iterator` null), or the one after `iterator`. */
export type PageReader<T> = (iterator: string | null) => Promise<ListOut<T>>;

/** The pages of the list at `path()`, a query with the page size (and filters). */
export const pagesAt =
  <T>(path: () => string): PageReader<T> =>
  (iterator) =>
    api<ListOut<T>>("GET", iterator ? `${path()}&iterator=${seg(iterator)}` : path());

/** The rows after the first page as last read, and where they join the first page. */
interface Kept<T> {
  rows: T[];
  /** The last row of the first page when they were read: the rows follow it. */
  after: string | undefined;
  end: { iterator: string | null; done: boolean };
  at: number;
}

export function pagedList<T extends { id: string }>(
  read: PageReader<T>,
  label: string,
  key: string,
) {
  let pages = 1;
  let kept: Kept<T> | null = null;
  // Whole reads overlap (a poll's under way when "More" or a search reads again). Only the newest
  // keeps its rows: an older one that ends last kept a list since searched away (the polls then
  // showed other event types under a search) or one page short of "More".
  let newest = 0;
  // The newest whole read while it is under way. A poll waits for it rather than join the first
  // page to rows it is reading again: the poll, begun later, ended first, and its answer was drawn
  // in place of the whole read's ("More" seemed to do nothing until the next poll).
  let reading: Promise<ListOut<T>> | null = null;

  /** Up to `n` pages from `from` on, as one list. */
  const readOn = async (from: string | null, n: number) => {
    const out: ListOut<T> = { data: [], iterator: from, done: false };
    for (let i = 0; i < n && !out.done; i++) {
      const page = await read(out.iterator);
      out.data.push(...page.data);
      out.iterator = page.iterator;
      out.done = page.done || !page.iterator;
    }
    return out;
  };

  /**
   * Every page shown, read from the top; the rows after the first are kept for the polls. `top`
   * holds the pages from the top already read, if any: they are not read again.
   */
  const whole = (top: ListOut<T>[] = []): Promise<ListOut<T>> => {
    const mine = ++newest;
    const run = readWhole(top, mine).finally(() => {
      if (mine === newest) reading = null;
    });
    reading = run;
    return run;
  };

  const readWhole = async (top: ListOut<T>[], mine: number): Promise<ListOut<T>> => {
    const first = top[0] ?? (await readOn(null, 1));
    const after = top.slice(1);
    if (pages === 1 || first.done) {
      if (mine === newest) kept = null;
      return first;
    }
    const last = after.at(-1) ?? first;
    const next = last.done ? null : await readOn(last.iterator, pages - 1 - after.length);
    const rest: ListOut<T> = {
      data: [...after.flatMap((p) => p.data), ...(next?.data ?? [])],
      iterator: next ? next.iterator : last.iterator,
      done: next ? next.done : last.done,
    };
    if (mine === newest) {
      kept = {
        rows: rest.data,
        after: first.data.at(-1)?.id,
        end: { iterator: rest.iterator, done: rest.done },
        at: performance.now(),
      };
    }
    return { ...rest, data: [...first.data, ...rest.data] };
  };

  /**
   * The first page read again, joined to the kept rows where it ends. Rows that came in on top
   * push the first page's last rows past it: a second page is read to reach the kept rows, so none
   * goes missing at the join. When the rows read do not end on the join or a kept row (more than a
   * page of new rows, or so many rows gone that they reach past the kept ones), the whole list is
   * read on from them (from the top, if another whole read began while they were read).
   */
  const firstOnly = async (k: Kept<T>): Promise<ListOut<T>> => {
    // A whole read begun meanwhile (a search, "More") may have changed what the list is: the two
    // pages read here are then of the list as it was, and must not be kept for it.
    const seen = newest;
    // Where each kept row stands, the join just before them.
    const place = new Map<string | undefined, number>(k.rows.map((r, i) => [r.id, i]));
    place.set(k.after, -1);
    const endsAt = (rows: T[]) => place.get(rows.at(-1)?.id);
    const first = await readOn(null, 1);
    const second =
      first.done || endsAt(first.data) !== undefined ? null : await readOn(first.iterator, 1);
    const head: ListOut<T> = second ? { ...second, data: [...first.data, ...second.data] } : first;
    // The list now ends within what was read: any kept row not in it is gone.
    if (head.done) {
      if (seen === newest) kept = null;
      return head;
    }
    const at = endsAt(head.data);
    if (at === undefined) return whole(seen !== newest ? [] : second ? [first, second] : [first]);
    // The list is ordered: the kept rows before the one the head ends on were in its reach, and
    // those not in it have gone (a dead letter resolved); shown, they stood below newer rows.
    return { data: [...head.data, ...k.rows.slice(at + 1)], ...k.end };
  };

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
    /**
     * Every page shown so far, as one list (`done` once nothing is left): at a poll, the first
     * page with the others as last read, unless they are {@link WHOLE_LIST_EVERY_MS} old.
     */
    load: (poll = false): Promise<ListOut<T>> => {
      if (poll && reading) return reading;
      const k = kept;
      return poll && k && performance.now() - k.at < WHOLE_LIST_EVERY_MS ? firstOnly(k) : whole();
    },
    /** Back to the first page (a new search). */
    reset: (): void => {
      pages = 1;
      kept = null;
      reading = null;
      newest++;
    },
    /** The "More" button, while more is left. */
    more: (done: boolean): Node[] => (done ? [] : [h("p", {}, more)]),
  };
}
