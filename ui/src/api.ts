/**
 * The dashboard's only way to hookline: the same JSON API every client uses, with the token held
 * in sessionStorage (gone when the tab closes) and sent as a Bearer header.
 */

import { withLocalTimes } from "./format.js";

const TOKEN_KEY = "hookline.token";
const APP_KEY = "hookline.portalApp";

/** An API answer that was not 2xx, with hookline's explanation. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

export const session = {
  token: (): string | null => sessionStorage.getItem(TOKEN_KEY),
  portalApp: (): string | null => sessionStorage.getItem(APP_KEY),
  signIn(token: string, portalApp: string | null = null): void {
    sessionStorage.setItem(TOKEN_KEY, token);
    if (portalApp) sessionStorage.setItem(APP_KEY, portalApp);
    else sessionStorage.removeItem(APP_KEY);
  },
  signOut(): void {
    sessionStorage.removeItem(TOKEN_KEY);
    sessionStorage.removeItem(APP_KEY);
  },
};

let onUnauthorized: () => void = () => {};
/** What to do when the token stops working (expired portal link, revoked token). */
export const whenUnauthorized = (fn: () => void): void => {
  onUnauthorized = fn;
};

/**
 * Calls the API; a 4xx/5xx becomes an ApiError carrying the server's detail. No answer at all, or
 * an error page that is not hookline's (a proxy's HTML), is said in words too, never as the
 * browser's "Failed to fetch" or a JSON parser's complaint.
 */
export async function api<T>(method: string, path: string, body?: unknown): Promise<T> {
  return (await call<T>(method, path, body)).value;
}

/** A GET's answer with its text as it came, for what must be shown as sent (a payload). */
export async function getWithText<T>(path: string): Promise<{ value: T; text: string }> {
  return call<T>("GET", path);
}

async function call<T>(
  method: string,
  path: string,
  body?: unknown,
): Promise<{ value: T; text: string }> {
  const headers: Record<string, string> = { authorization: `Bearer ${session.token() ?? ""}` };
  if (body !== undefined) headers["content-type"] = "application/json";
  let res: Response;
  try {
    res = await fetch(path, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  } catch {
    throw new ApiError(0, "hookline did not answer (is it running, and is the network up?)");
  }
  const text = await res.text();
  let json: unknown = null;
  try {
    json = text ? JSON.parse(text) : null;
  } catch {
    if (res.ok) throw new ApiError(res.status, `hookline answered HTTP ${res.status} without JSON`);
  }
  if (res.status === 401) onUnauthorized();
  if (!res.ok) throw new ApiError(res.status, describe(json, res));
  return { value: json as T, text };
}

/** GET that answers null on 404 (an optional API, or something deleted meanwhile). */
export async function maybe<T>(path: string): Promise<T | null> {
  try {
    return await api<T>("GET", path);
  } catch (err) {
    if (err instanceof ApiError && err.status === 404) return null;
    throw err;
  }
}

/**
 * hookline's explanation, each time it names (in UTC) shown as the page shows times: applied to
 * hookline's words alone, not to a toast naming what someone typed (a URL, an id), which it
 * rewrote into an address or id that was not theirs.
 */
function describe(json: unknown, res: Response): string {
  const body = json as { detail?: unknown } | null;
  if (typeof body?.detail === "string") return withLocalTimes(body.detail);
  if (Array.isArray(body?.detail)) {
    return body.detail
      .map(
        (d: { loc?: string[]; msg?: string }) =>
          `${(d.loc ?? []).slice(1).join(".")}: ${withLocalTimes(d.msg ?? "")}`,
      )
      .join("; ");
  }
  return `HTTP ${res.status}${res.statusText ? ` ${res.statusText}` : ""}`;
}

/** Path segment, escaped. */
export const seg = encodeURIComponent;

export interface ListOut<T> {
  data: T[];
  iterator: string | null;
  done: boolean;
}

/**
 * The first `pages` pages of a list (`path` has a query, with the page size), following its
 * iterator: `done` is false while more are left for a "More" button to ask for.
 */
export async function firstPages<T>(path: string, pages: number): Promise<ListOut<T>> {
  const out: ListOut<T> = { data: [], iterator: null, done: false };
  for (let i = 0; i < pages && !out.done; i++) {
    const next = out.iterator ? `${path}&iterator=${seg(out.iterator)}` : path;
    const page = await api<ListOut<T>>("GET", next);
    out.data.push(...page.data);
    out.iterator = page.iterator;
    out.done = page.done || !page.iterator;
  }
  return out;
}

/** Every page of a list, for a view that needs the whole set at once. */
export const everyPage = <T>(path: string): Promise<ListOut<T>> => firstPages<T>(path, Infinity);
