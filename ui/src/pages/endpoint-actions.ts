/** What one can do to an endpoint: edit, disable, delete, reveal or rotate its secret, test it. */
import { api } from "../api.js";
import { action, field, h, toast } from "../dom.js";
import { refreshNow } from "../live.js";
import type { Endpoint } from "../types.js";
import { typesOf } from "./endpoints.js";

/** The actions on an endpoint, and `follow` to keep them in step with its refreshed state. */
export function endpointActions(
  appId: string,
  ep: Endpoint,
  path: string,
): { element: HTMLElement; follow(ep: Endpoint): void } {
  const secret = h("output", { class: "secret", "aria-live": "polite" });
  const eventType = h("input", {
    name: "eventType",
    value: ep.filterTypes?.[0] ?? "hookline.test",
  });
  const url = h("input", { name: "url", type: "url", required: true, value: ep.url });
  const description = h("input", { name: "description", value: ep.description });
  const types = h("input", { name: "filterTypes", value: ep.filterTypes?.join(", ") ?? "" });
  const edit = h(
    "form",
    { class: "card" },
    h("h2", {}, "Edit"),
    field("URL", url),
    field("Description", description),
    field("Event types", types, "Comma-separated; empty for every type"),
    h("button", { type: "submit" }, "Save changes"),
  );
  edit.addEventListener("submit", (e) => {
    e.preventDefault();
    void api("PATCH", path, {
      url: url.value,
      description: description.value,
      filterTypes: typesOf(types.value),
    })
      .then(async () => {
        toast("Endpoint saved");
        await refreshNow();
      })
      .catch((err: Error) => toast(err.message, true));
  });
  // The endpoint can change under the page (the engine disables it on 410 Gone, someone else
  // enables it): the button offers what the latest state allows.
  let disabled = ep.disabled;
  let current = ep;
  const offer = (nowDisabled: boolean) => {
    disabled = nowDisabled;
    toggle.textContent = disabled ? "Enable" : "Disable";
  };
  const toggle = action(disabled ? "Enable" : "Disable", async () => {
    await api("PATCH", path, { disabled: !disabled });
    offer(!disabled);
    toast(disabled ? "Endpoint disabled" : "Endpoint enabled");
    await refreshNow();
  });
  const element = h(
    "div",
    { class: "actions-grid" },
    h(
      "section",
      { class: "card", "aria-labelledby": "test-title" },
      h("h2", { id: "test-title" }, "Send a test event"),
      field("Event type", eventType),
      action("Send test event", async () => {
        const msg = await api<{ id: string }>("POST", `${path}/send-example`, {
          eventType: eventType.value,
        });
        toast(`Test event ${msg.id} queued`);
        await refreshNow();
      }),
      h("h2", {}, "Signing secret"),
      h(
        "div",
        { class: "row" },
        action("Reveal secret", async () => {
          secret.textContent = (await api<{ key: string }>("GET", `${path}/secret`)).key;
        }),
        action("Rotate secret", async () => {
          if (!confirm("Rotate the signing secret? The old one keeps working for a grace period."))
            return;
          await api("POST", `${path}/secret/rotate`, {});
          secret.textContent = (await api<{ key: string }>("GET", `${path}/secret`)).key;
          toast("Secret rotated");
        }),
      ),
      secret,
      h("h2", {}, "Availability"),
      h(
        "div",
        { class: "row" },
        toggle,
        action(
          "Delete endpoint",
          async () => {
            if (!confirm(`Delete ${current.url}? Its pending deliveries stop.`)) return;
            await api("DELETE", path);
            location.hash = `#/app/${appId}/endpoints`;
          },
          { class: "danger" },
        ),
      ),
    ),
    edit,
  );
  return {
    element,
    follow: (now) => {
      current = now;
      offer(now.disabled);
    },
  };
}
