/** Operator console: every application, a way to add one, and portal links for customers. */
import { api, seg } from "../api.js";
import { action, field, h, link, onSubmit, table, toast } from "../dom.js";
import { ago } from "../format.js";
import { live, refreshNow } from "../live.js";
import { pagedList } from "../paging.js";
import type { App } from "../types.js";

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
  const apps = pagedList<App>(() => "/api/v1/app?limit=250", "More applications", "more-apps");
  await live(list, apps.load, (shown) => [
    table(
      "Applications",
      ["Name", "Id", "Created", ""],
      shown.data.map((a) => [
        link(`/app/${a.id}/endpoints`, a.name, { "data-key": `app-${a.id}` }),
        h("code", {}, a.id),
        ago(a.createdAt),
        action(
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
