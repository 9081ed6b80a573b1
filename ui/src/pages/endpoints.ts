/** An application's endpoints with their health at a glance, and a form to add one. */
import { api, seg } from "../api.js";
import { field, h, link, onSubmit, table, toast } from "../dom.js";
import { ago, latency, percent } from "../format.js";
import { live, refreshNow } from "../live.js";
import { pagedList, pagesAt } from "../paging.js";
import type { App, Endpoint, EndpointHealth } from "../types.js";
import { circuitBadge } from "./health.js";

/** Comma- or space-separated event types, or null for "all". */
export const typesOf = (text: string): string[] | null => {
  const list = text.split(/[\s,]+/).filter(Boolean);
  return list.length ? list : null;
};

/**
 * The API names a refused event type by its place ("event_types.1: …", "filterTypes.1: …"); say
 * which one was typed.
 */
export const namedTypes = (message: string, typed: string[] | null): string =>
  message.replace(/(?:event_types|filterTypes)\.(\d+)/g, (all, i: string) =>
    typed?.[Number(i)] === undefined ? all : `event type "${typed[Number(i)]}"`,
  );

export async function renderEndpoints(page: HTMLElement, p: Record<string, string>): Promise<void> {
  const app = await api<App>("GET", `/api/v1/app/${seg(p.app!)}`);
  const base = `/api/v1/app/${seg(app.id)}/endpoint`;
  const healthPath = `/api/v1/app/${seg(app.id)}/endpoint-health`;
  const url = h("input", { name: "url", type: "url", required: true, placeholder: "https://" });
  const description = h("input", { name: "description", maxlength: 500 });
  const types = h("input", { name: "filterTypes", placeholder: "all event types" });
  const form = h(
    "form",
    { class: "card", "aria-labelledby": "new-ep" },
    h("h2", { id: "new-ep" }, "Add an endpoint"),
    field("URL", url, "Where hookline sends this application's events"),
    field("Description", description),
    field("Event types", types, "Comma-separated; leave empty to receive every type"),
    h("button", { type: "submit" }, "Add endpoint"),
  );
  onSubmit(form, async () => {
    const filterTypes = typesOf(types.value);
    const ep = await api<Endpoint>("POST", base, {
      url: url.value,
      description: description.value,
      filterTypes,
    }).catch((err: Error) => {
      throw new Error(namedTypes(err.message, filterTypes), { cause: err });
    });
    form.reset();
    toast(`Endpoint ${ep.url} added`);
    await refreshNow();
  });
  const list = h("section", { "aria-label": "Endpoints" });
  page.append(
    h("h1", {}, `Endpoints of ${app.name}`),
    h("p", {}, link(`/app/${app.id}/messages`, "Messages of this application")),
    list,
    form,
  );
  const endpointsAt = pagesAt<Endpoint>(() => `${base}?limit=250`);
  const healthAt = pagesAt<EndpointHealth>(() => `${healthPath}?limit=250&minutes=60`);
  const endpoints = pagedList(
    async (iterator) => {
      // Health for the same page in one request per 250 endpoints. An endpoint added between
      // the two reads shifts the page; a row whose health is not in it shows none until the
      // next refresh.
      const [eps, health] = await Promise.all([endpointsAt(iterator), healthAt(iterator)]);
      const byId = new Map(health.data.map((x) => [x.endpointId, x]));
      return { ...eps, data: eps.data.map((ep) => ({ id: ep.id, ep, hour: byId.get(ep.id) })) };
    },
    "More endpoints",
    "more-endpoints",
  );
  await live(
    list,
    async (poll) => {
      const { data, done } = await endpoints.load(poll);
      return { rows: data, done };
    },
    ({ rows, done }) => [
      table(
        "Endpoints and their health (last hour)",
        ["Endpoint", "Status", "Circuit", "Success", "Mean latency", "In flight", "Last success"],
        rows.map(({ ep, hour }) => [
          link(`/app/${app.id}/endpoint/${ep.id}`, ep.url, { "data-key": `ep-${ep.id}` }),
          ep.disabled ? h("span", { class: "badge muted" }, "Disabled") : "Enabled",
          circuitBadge(ep.circuit.state),
          hour?.successRate == null ? "—" : `${percent(hour.successRate)} of ${hour.attempts}`,
          hour?.meanDurationMs == null ? "—" : latency(hour.meanDurationMs),
          `${ep.concurrency.inFlight} / ${ep.concurrency.effectiveLimit}`,
          ago(ep.lastSuccessAt),
        ]),
      ),
      ...endpoints.more(done),
    ],
  );
}
