/** The page's address: its route's path, and the search or filter its query keeps. */
/**
 * The address's query (`#/app/…/messages?event_types=order.paid`): the search or filter a page
 * shows, kept in the address so that a link to it, a bookmark or a reload shows the same.
 */
export const addressQuery = (): URLSearchParams =>
  new URLSearchParams(location.hash.slice(1).split("?")[1] ?? "");

/** The route's path in the address, without its query. */
export const addressPath = (): string => location.hash.slice(1).split("?")[0]!;

/**
 * Puts `query` in the address of this history entry (no new entry, no navigation): the page now
 * shows it, and Back from a page opened from here comes back to it.
 */
export function setAddressQuery(query: URLSearchParams): void {
  const q = query.toString();
  history.replaceState(history.state, "", `#${addressPath()}${q ? `?${q}` : ""}`);
}
