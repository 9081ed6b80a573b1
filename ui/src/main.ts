/**
 * The dashboard: the operator console at /ui/ (admin token, every application) and the customer
 * portal at /portal/ (opened by a portal link, one application). Hash routes keep every page on
 * one URL the server knows, and keep the portal token out of server logs.
 */
import "./style.css";
import { api, ApiError, session, whenUnauthorized } from "./api.js";
import { h, link, replace, toast } from "./dom.js";
import { dropLive, POLL_MS, resetLive, startPolling, whenGone } from "./live.js";
import { renderLogin } from "./pages/login.js";
import { addressPath } from "./address.js";
import { routes, type Ctx } from "./routes.js";

const portal = location.pathname.startsWith("/portal");

/**
 * The portal link's fragment (`#app=…&token=…`) becomes this tab's session, then leaves the URL.
 * Run at load and on every hash change: a new link opened in a page already open (a fresh link
 * in an embedding iframe, a pasted one) changes only the fragment, so the page does not reload.
 */
function takePortalLink(): void {
  const params = new URLSearchParams(location.hash.slice(1));
  const token = params.get("token");
  const app = params.get("app");
  if (!token || !app) return;
  signedOut = false;
  noSessionHere = false;
  session.signIn(token, app);
  history.replaceState(null, "", `${location.pathname}#/app/${encodeURIComponent(app)}/endpoints`);
}

/**
 * Portal tabs of this browser share their session with a portal page opened in a new tab (a link
 * opened with a middle click, or "Open in new tab"), which starts with empty sessionStorage: the
 * new tab asks, and a tab holding a session of the same application answers with it. The channel
 * reaches only pages of this origin, and only tabs that hold the session answer.
 */
const shared =
  portal && "BroadcastChannel" in window ? new BroadcastChannel("hookline-portal") : null;
type Shared = { ask: string } | { app: string; token: string };
shared?.addEventListener("message", (e: MessageEvent<Shared>) => {
  const token = session.token();
  if ("ask" in e.data && token && e.data.ask === session.portalApp()) {
    shared.postMessage({ app: e.data.ask, token } satisfies Shared);
  }
});
/**
 * Asked at most once per tab, and never by one that had a session: a session that ended here is
 * not taken again from another tab.
 */
let askedOtherTabs = false;

/** The session of application `app` from another portal tab, if one answers in time. */
function sessionFromOtherTab(app: string): Promise<boolean> {
  if (!shared) return Promise.resolve(false);
  return new Promise((resolve) => {
    const done = (found: boolean) => {
      shared.removeEventListener("message", answer);
      window.clearTimeout(timer);
      resolve(found);
    };
    const answer = (e: MessageEvent<Shared>) => {
      if (!("token" in e.data) || e.data.app !== app) return;
      session.signIn(e.data.token, app);
      done(true);
    };
    const timer = window.setTimeout(() => done(false), 500);
    shared.addEventListener("message", answer);
    shared.postMessage({ ask: app } satisfies Shared);
  });
}

function nav(ctx: Ctx): void {
  const items: [string, string][] = ctx.portal
    ? [
        [`/app/${ctx.portalApp}/endpoints`, "Endpoints"],
        [`/app/${ctx.portalApp}/messages`, "Messages"],
      ]
    : [
        ["/apps", "Applications"],
        ["/dlq", "Dead letters"],
        ["/jobs", "Replay jobs"],
        ["/alerts", "Alerts"],
        ["/system", "System"],
      ];
  const here = addressPath();
  replace(
    document.getElementById("nav")!,
    h(
      "ul",
      {},
      items.map(([to, label]) =>
        h("li", {}, link(to, label, { "aria-current": here.startsWith(to) ? "page" : null })),
      ),
    ),
  );
  replace(
    document.getElementById("who")!,
    ctx.portal ? "Customer portal" : "Operator console",
    " ",
    h(
      "button",
      {
        type: "button",
        class: "link",
        onclick: () => void signOut(ctx),
      },
      "Sign out",
    ),
  );
}

/**
 * Signing out of the portal ends the link itself (Svix's logout), not just this tab's copy: the
 * link stays in the browser's history, and whoever opens it there must not find the application.
 * An admin token is no session (logout refuses one): the console only forgets it.
 */
async function signOut(ctx: Ctx): Promise<void> {
  // A link that has ended already (401) is signed out all the same.
  if (ctx.portal) await api("POST", "/api/v1/auth/logout").catch(() => {});
  session.signOut();
  signedOut = ctx.portal;
  void show();
}

let generation = 0;
let signingIn = false;
/** The portal was signed out here (its page says so, not that the link was bad). */
let signedOut = false;
/** A page opened in a new tab found no other portal tab to take the session from. */
let noSessionHere = false;

/**
 * The window's title: `text`, or the heading of what the page shows, then " · hookline", so that
 * tabs and the history tell pages apart.
 */
function setTitle(text?: string): void {
  const heading = text ?? document.querySelector("#main h1")?.textContent ?? "";
  document.title = heading ? `${heading} · hookline` : "hookline";
}

async function show(navigated = false, retrying = false): Promise<void> {
  const mine = ++generation;
  resetLive();
  const main = document.getElementById("main")!;
  // A portal session never carries over to the console (same origin, same tab storage).
  if (!portal && session.portalApp()) session.signOut();
  // A portal page opened in a new tab: its session is another tab's. A tab that has had a session
  // of its own asks no other: one that ended (expired, revoked) says so.
  if (session.token()) askedOtherTabs = true;
  const wantedApp = /^\/app\/([^/]+)\//.exec(location.hash.slice(1))?.[1];
  if (portal && !session.token() && !askedOtherTabs && wantedApp) {
    askedOtherTabs = true;
    replace(main, h("p", { class: "loading" }, "Loading…"));
    const found = await sessionFromOtherTab(decodeURIComponent(wantedApp));
    if (mine !== generation) return;
    if (!found) noSessionHere = true;
  }
  if (!session.token()) {
    replace(document.getElementById("nav")!);
    replace(document.getElementById("who")!);
    if (portal) {
      replace(
        main,
        ...(signedOut
          ? [
              h("h1", {}, "You have signed out"),
              h(
                "p",
                {},
                "This portal link no longer works. To come back, ask the service that sent you " +
                  "here for a new link.",
              ),
            ]
          : noSessionHere
            ? [
                h("h1", {}, "This tab has no portal session"),
                h(
                  "p",
                  {},
                  "A portal page opened in a new tab uses the session of a portal tab still " +
                    "open, and none is. Open the portal link you were given again, or ask the " +
                    "service that sent you here for a new one.",
                ),
              ]
            : [
                h("h1", {}, "This portal link has expired or is incomplete"),
                h("p", {}, "Ask the service that sent you here for a new link."),
              ]),
      );
      setTitle();
      return;
    }
    renderLogin(main, async (token) => {
      session.signIn(token);
      // A token refused here is said on the form: no session had begun, so none has ended.
      signingIn = true;
      try {
        await api("GET", "/api/v1/app?limit=1");
      } finally {
        signingIn = false;
      }
      // The address opened before signing in (a link shared or bookmarked, or the page a session
      // that ended was on) is what is shown, not the application list.
      if (!location.hash.startsWith("#/")) location.hash = "#/apps";
      await show();
    });
    setTitle("Sign in");
    return;
  }
  const ctx: Ctx = { portal, portalApp: session.portalApp() };
  // A page's search or filter rides in the address's query, which the page reads itself.
  const path = addressPath() || (portal ? `/app/${ctx.portalApp}/endpoints` : "/apps");
  nav(ctx);
  for (const route of routes) {
    if (route.consoleOnly && portal) continue;
    const m = route.pattern.exec(path);
    if (!m) continue;
    const params = (m.groups ?? {}) as Record<string, string>;
    // A portal session shows its own application only, whatever the address says; the API
    // would refuse the others anyway (404), this just says so plainly.
    if (portal && params.app !== undefined && params.app !== ctx.portalApp) break;
    if (!retrying) replace(main, h("p", { class: "loading" }, "Loading…"));
    const page = h("div", { class: "page" });
    try {
      await route.render(page, params, ctx);
      if (mine === generation) {
        replace(main, page);
        setTitle(route.title?.(params));
        // After following a link, start reading (and tabbing) from the new page's content.
        if (navigated) main.focus({ preventScroll: true });
      } else {
        dropLive(page);
      }
    } catch (err) {
      dropLive(page);
      if (mine === generation) {
        replace(
          main,
          h("h1", {}, "Could not load this page"),
          h("p", { class: "error" }, err instanceof Error ? err.message : String(err)),
        );
        setTitle();
        // hookline out of reach (no answer, or a proxy's 5xx): load again at the next update, as
        // a page already shown would; a refusal (404, 403) stays said.
        if (err instanceof ApiError && (err.status === 0 || err.status >= 500)) {
          window.setTimeout(() => {
            if (mine === generation) void show(navigated, true);
          }, POLL_MS);
        }
      }
    }
    return;
  }
  replace(main, h("h1", {}, "Not found"), h("p", {}, "There is nothing to show at this address."));
  setTitle();
}

// The skip link's `#main` would be read as a route (routes live in the fragment): it moves focus
// to the content itself and leaves the address alone.
document.querySelector("a.skip")?.addEventListener("click", (e) => {
  e.preventDefault();
  document.getElementById("main")!.focus();
});
if (portal) takePortalLink();
whenUnauthorized(() => {
  if (signingIn) return;
  // Ended by hookline (expired, revoked), not signed out here: the page says the link has ended.
  signedOut = false;
  noSessionHere = false;
  session.signOut();
  // Each request refused at once says it: read out once.
  toast("Your session has ended: the token is no longer valid.", true, { again: "quiet" });
  void show();
});
// What the page showed was deleted: loaded again, it says "not found" and stops updating.
whenGone(() => void show(false, true));
window.addEventListener("hashchange", () => {
  if (portal) takePortalLink();
  void show(true);
});
void show();
startPolling();
