/** What one can do to an endpoint: edit, disable, delete, reveal or rotate its secret, test it. */
import { api } from "../api.js";
import { confirmed } from "../confirm.js";
import { action, field, h, onSubmit, toast } from "../dom.js";
import { plural, seconds, time, until } from "../format.js";
import { atEveryPoll, refreshNow } from "../live.js";
import type { Endpoint, EndpointSecret } from "../types.js";
import { namedTypes, typesOf } from "./endpoints.js";

/** The API names a refused channel by its place ("channels.1: …"); say which one was typed. */
const namedChannels = (message: string, typed: string[] | null): string =>
  message.replace(/\bchannels\.(\d+)/g, (all, i: string) =>
    typed?.[Number(i)] === undefined ? all : `channel "${typed[Number(i)]}"`,
  );

/** Asks before rotating, saying what it does to the old secret as this hookline is set up. */
const rotationConfirmed = (graceSeconds: number): Promise<boolean> =>
  confirmed({
    question: "Rotate the signing secret?",
    detail:
      graceSeconds > 0
        ? `The old one keeps signing for ${seconds(graceSeconds)} beside the new one.`
        : "The old one stops signing at once: receivers must verify with the new one from now on.",
    verb: "Rotate secret",
  });

/**
 * Until when the secrets the current one replaced still sign beside it: a receiver may see their
 * signatures until then. Once the rotation's question was answered, nothing said so.
 */
function replacedNote(replaced: EndpointSecret["previousSecrets"]): (Node | string)[] {
  if (replaced.length === 0)
    return ["Only this secret signs: no secret it replaced signs any more."];
  const times = replaced.flatMap((p, i) => [
    i === 0 ? "" : i === replaced.length - 1 ? " and " : ", ",
    `${time(p.signsUntil)} (`,
    until(p.signsUntil, { exactBeside: true }),
    ")",
  ]);
  const [what, whose] =
    replaced.length === 1
      ? ["The secret it replaced also signs until ", "its signature"]
      : [
          `The ${plural(replaced.length, "secret")} it replaced also sign, until `,
          "their signatures",
        ];
  return [what, ...times, `: the receiver may see ${whose} beside this one's until then.`];
}

/** The actions on an endpoint, and `follow` to keep them in step with its refreshed state. */
export function endpointActions(
  appId: string,
  ep: Endpoint,
  path: string,
): { element: HTMLElement; follow(ep: Endpoint): void } {
  const secret = h("output", { class: "secret", "aria-live": "polite" });
  const replaced = h("p", { class: "hint", "aria-live": "polite" });
  // The secrets the shown one replaced, as last read (null: none shown yet), and how many the note
  // names. It is drawn again as each one's time passes: drawn only when read, it went on saying
  // the old secret "also signs until … (now)" long after hookline had stopped signing with it.
  let previous: EndpointSecret["previousSecrets"] | null = null;
  let named = -1;
  const note = () => {
    if (!previous) return;
    const now = Date.now();
    const signing = previous.filter((p) => Date.parse(p.signsUntil) > now);
    if (signing.length === named) return;
    named = signing.length;
    replaced.replaceChildren(...replacedNote(signing));
  };
  atEveryPoll(replaced, note);
  const show = async () => {
    const answer = await api<EndpointSecret>("GET", `${path}/secret`);
    secret.textContent = answer.key;
    previous = answer.previousSecrets;
    named = -1;
    note();
  };
  // The test event's type: the endpoint's first event type, following its edits until typed over.
  const suggestedType = (e: Endpoint): string => e.filterTypes?.[0] ?? "hookline.test";
  let suggested = suggestedType(ep);
  const eventType = h("input", { name: "eventType", value: suggested });
  const url = h("input", { name: "url", type: "url", required: true, value: ep.url });
  const description = h("input", { name: "description", value: ep.description });
  const types = h("input", { name: "filterTypes", value: ep.filterTypes?.join(", ") ?? "" });
  const channels = h("input", { name: "channels", value: ep.channels?.join(", ") ?? "" });
  const edit = h(
    "form",
    { class: "card", "aria-labelledby": "edit-title" },
    h("h2", { id: "edit-title" }, "Edit"),
    field("URL", url),
    field("Description", description),
    field("Event types", types, "Comma-separated; empty for every type"),
    field("Channels", channels, "Comma-separated; empty for every message, whatever its channels"),
    h("button", { type: "submit" }, "Save changes"),
  );
  // The fields as last filled from the endpoint. One the customer has not changed since follows
  // the endpoint's refreshed state, and only changed ones are saved: sending them all put back a
  // URL or event types changed meanwhile (in another tab, or through the API).
  const inputs = { url, description, filterTypes: types, channels };
  const formOf = (e: Endpoint): Record<keyof typeof inputs, string> => ({
    url: e.url,
    description: e.description,
    filterTypes: e.filterTypes?.join(", ") ?? "",
    channels: e.channels?.join(", ") ?? "",
  });
  let filled = formOf(ep);
  const fields = Object.keys(inputs) as (keyof typeof inputs)[];
  const isList = (k: keyof typeof inputs) => k === "filterTypes" || k === "channels";
  // A field's value as formOf writes it ("a,b" and "a, b" are the same event types).
  const valueOf = (k: keyof typeof inputs): string =>
    isList(k) ? (typesOf(inputs[k].value)?.join(", ") ?? "") : inputs[k].value;
  // Once at a time: a second Enter while hookline had not answered sent the save again.
  onSubmit(edit, async () => {
    const changed = fields.filter((k) => valueOf(k) !== filled[k]);
    const body = Object.fromEntries(
      changed.map((k) => [k, isList(k) ? typesOf(inputs[k].value) : inputs[k].value]),
    );
    await api("PATCH", path, body).catch((err: Error) => {
      const named = namedTypes(err.message, typesOf(types.value));
      throw new Error(namedChannels(named, typesOf(channels.value)), { cause: err });
    });
    toast("Endpoint saved");
    await refreshNow();
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
  // One region per heading: a screen reader's list of regions named the whole card after its
  // first heading, "Send a test event", the secret and Delete endpoint within it.
  const region = (id: string, title: string, ...content: Node[]) =>
    h("section", { "aria-labelledby": id }, h("h2", { id }, title), ...content);
  const element = h(
    "div",
    { class: "actions-grid" },
    h(
      "div",
      { class: "card" },
      region(
        "test-title",
        "Send a test event",
        field("Event type", eventType),
        action("Send test event", async () => {
          const msg = await api<{ id: string }>("POST", `${path}/send-example`, {
            eventType: eventType.value,
          });
          toast(`Test event ${msg.id} queued`);
          await refreshNow();
        }),
      ),
      region(
        "secret-title",
        "Signing secret",
        h(
          "div",
          { class: "row" },
          action("Reveal secret", show),
          action("Rotate secret", async () => {
            if (!(await rotationConfirmed(current.rotationGracePeriodSeconds))) return;
            await api("POST", `${path}/secret/rotate`, {});
            await show();
            toast("Secret rotated");
          }),
        ),
        secret,
        replaced,
      ),
      region(
        "availability-title",
        "Availability",
        h(
          "div",
          { class: "row" },
          toggle,
          action(
            "Delete endpoint",
            async () => {
              const asked = {
                question: `Delete ${current.url}?`,
                detail: "Its pending deliveries stop.",
                verb: "Delete endpoint",
                danger: true,
              };
              if (!(await confirmed(asked))) return;
              await api("DELETE", path);
              // Said, so the toast of an earlier action (an error, "Endpoint enabled") is not
              // what the endpoint list opens under.
              toast(`Endpoint ${current.url} deleted`);
              location.hash = `#/app/${appId}/endpoints`;
            },
            { class: "danger" },
          ),
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
      const next = formOf(now);
      for (const k of fields) if (valueOf(k) === filled[k]) inputs[k].value = next[k];
      filled = next;
      if (eventType.value === suggested) eventType.value = suggestedType(now);
      suggested = suggestedType(now);
    },
  };
}
