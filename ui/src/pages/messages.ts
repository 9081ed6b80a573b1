/**
 * An application's message log (searchable by event type, or by message or event id), and one
 * message: its payload and, per endpoint, its attempts as a timeline, with resend.
 */
import { api, maybe, seg, type ListOut } from "../api.js";
import { action, field, h, link, table, toast } from "../dom.js";
import { ago, pretty, time, until } from "../format.js";
import { live, refreshNow } from "../live.js";
import type { App, Attempt, Message } from "../types.js";
import { attemptDetails, attemptResult, viewOf } from "./attempt.js";
import { typesOf } from "./endpoints.js";

export async function renderMessages(page: HTMLElement, p: Record<string, string>): Promise<void> {
  const app = await api<App>("GET", `/api/v1/app/${seg(p.app!)}`);
  const base = `/api/v1/app/${seg(app.id)}/msg`;
  const types = h("input", { name: "eventTypes", placeholder: "e.g. invoice.paid" });
  const id = h("input", { name: "id", placeholder: "msg_… or your event id" });
  let filter = "";
  const search = h(
    "form",
    { class: "card inline", role: "search" },
    field("Event types", types, "Comma-separated"),
    field("Message or event id", id),
    h("button", { type: "submit" }, "Search"),
  );
  search.addEventListener("submit", (e) => {
    e.preventDefault();
    if (id.value.trim()) {
      void maybe<Message>(`${base}/${seg(id.value.trim())}`).then((m) => {
        if (m) location.hash = `#/app/${app.id}/message/${m.id}`;
        else toast(`No message ${id.value.trim()} in ${app.name}`, true);
      });
      return;
    }
    // Separated by spaces or commas, as in the endpoint forms; one event_types each, as Svix.
    filter = (typesOf(types.value) ?? []).map((t) => `&event_types=${seg(t)}`).join("");
    void refreshNow();
  });
  const list = h("section", { "aria-label": "Messages" });
  page.append(
    h("p", {}, link(`/app/${app.id}/endpoints`, `← Endpoints of ${app.name}`)),
    h("h1", {}, `Messages of ${app.name}`),
    search,
    list,
  );
  await live(
    list,
    () => api<ListOut<Message>>("GET", `${base}?limit=50&with_content=false${filter}`),
    (msgs) =>
      table(
        "Newest messages first",
        ["When", "Event type", "Message", "Event id"],
        msgs.data.map((m) => [
          ago(m.timestamp),
          m.eventType,
          link(`/app/${app.id}/message/${m.id}`, h("code", {}, m.id), {
            "data-key": `msg-${m.id}`,
          }),
          m.eventId ?? "—",
        ]),
      ),
  );
}

interface Destination {
  id: string;
  url: string;
  statusText: string;
  nextAttempt: string | null;
}

export async function renderMessage(page: HTMLElement, p: Record<string, string>): Promise<void> {
  const app = await api<App>("GET", `/api/v1/app/${seg(p.app!)}`);
  const appPath = `/api/v1/app/${seg(app.id)}`;
  const msg = await api<Message>("GET", `${appPath}/msg/${seg(p.msg!)}`);
  const timeline = h("section", { "aria-labelledby": "timeline-title" });
  page.append(
    h("p", {}, link(`/app/${app.id}/messages`, `← Messages of ${app.name}`)),
    h("h1", {}, `${msg.eventType} `, h("code", {}, msg.id)),
    h("p", {}, `Accepted ${time(msg.timestamp)}`, msg.eventId ? ` · event id ${msg.eventId}` : ""),
    h("h2", {}, "Payload"),
    h("pre", { class: "payload", tabindex: 0 }, pretty(msg.payload)),
    h("h2", { id: "timeline-title" }, "Deliveries"),
    timeline,
  );
  await live(
    timeline,
    async () => ({
      dests: await api<ListOut<Destination>>(
        "GET",
        `${appPath}/msg/${seg(msg.id)}/endpoint?limit=250`,
      ),
      attempts: await api<ListOut<Attempt>>(
        "GET",
        `${appPath}/attempt/msg/${seg(msg.id)}?limit=250`,
      ),
    }),
    ({ dests, attempts }) =>
      dests.data.map((d) =>
        h(
          "article",
          { class: "card timeline" },
          h("h3", {}, link(`/app/${app.id}/endpoint/${d.id}`, d.url)),
          h(
            "p",
            {},
            h("span", { class: `badge status-${d.statusText}` }, d.statusText),
            d.nextAttempt ? [" · next attempt ", until(d.nextAttempt)] : "",
            " ",
            action(
              "Resend to this endpoint",
              async () => {
                await api("POST", `${appPath}/msg/${seg(msg.id)}/endpoint/${seg(d.id)}/resend`);
                toast("Resend queued");
                await refreshNow();
              },
              { "data-key": `resend-${d.id}` },
            ),
          ),
          h(
            "ol",
            {},
            attempts.data
              .filter((a) => a.endpointId === d.id)
              .reverse()
              .map((a) =>
                h(
                  "li",
                  { class: `outcome-${a.outcome}` },
                  h("strong", {}, time(a.timestamp)),
                  ` ${a.trigger}: ${attemptResult(viewOf(a))}`,
                  ` in ${a.responseDurationMs} ms (${a.outcome.replace("_", " ")})`,
                  a.response ? h("code", { class: "snippet" }, ` ${a.response.slice(0, 120)}`) : "",
                  attemptDetails(viewOf(a)),
                ),
              ),
          ),
        ),
      ),
  );
}
