/** Operator console: every application, a way to add one, and portal links for customers. */
import { api, seg } from "../api.js";
import { action, field, h, link, onSubmit, table, toast } from "../dom.js";
import { ago } from "../format.js";
import { live, refreshNow } from "../live.js";
import { pagedList, pagesAt } from "../paging.js";
import type { App } from "../types.js";

/** As the server judges it: a reserved uid and hookline's marker (see system-apps.ts). */
const isHooklines = (a: App): boolean =>
  (a.uid === "hookline-operational" || a.uid === "hookline-drill") &&
  a.metadata?.["hookline.system"] === "true";

export async function renderApps(page: HTMLElement): Promise<void> {
  const list = h("section", { "aria-labelledby": "apps-title" });
  const name = h("input", { name: "name", required: true, maxlength: 256 });
  const create = h(
    "form",
    { class: "card inline" },
    h("h2", {}, "New application"),
    field("Name", name),
    h("button", { type: "submit" }, "Create application"),
  );
  // Once at a time: a double click made two applications of one name.
  onSubmit(create, async () => {
    const app = await api<App>("POST", "/api/v1/app", { name: name.value });
    name.value = "";
    toast(`Application ${app.name} created`);
    await refreshNow();
  });
  const portalOut = h("div", { class: "portal-link", "aria-live": "polite" });
  page.append(h("h1", { id: "apps-title" }, "Applications"), create, portalOut, list);
  const apps = pagedList<App>(
    pagesAt(() => "/api/v1/app?limit=250"),
    "More applications",
    "more-apps",
  );
  await live(list, apps.load, (shown) => [
    table(
      "Applications",
      ["Name", "Id", "Created", ""],
      shown.data.map((a) => [
        link(`/app/${a.id}/endpoints`, a.name, { "data-key": `app-${a.id}` }),
        h("code", {}, a.id),
        ago(a.createdAt),
        // hookline refuses portal links to its own applications (they hold the operational
        // endpoints' secrets); say so in the row instead of offering a button that fails.
        isHooklines(a)
          ? h("span", { class: "badge muted" }, "hookline's own")
          : action(
              "Portal link",
              async () => {
                const out = await api<{ url: string }>(
                  "POST",
                  `/api/v1/auth/app-portal-access/${seg(a.id)}`,
                  { expiry: 3600 },
                );
                portalOut.replaceChildren(
                  h(
                    "p",
                    {},
                    `Portal link for ${a.name} (valid one hour; anyone with it sees this application):`,
                  ),
                  h("input", {
                    readonly: true,
                    value: out.url,
                    "aria-label": "Portal link",
                    class: "wide",
                  }),
                );
              },
              { "data-key": `portal-${a.id}` },
            ),
      ]),
    ),
    ...apps.more(shown.done),
  ]);
}
