/**
 * docs/api.md names list filters as the Svix client spells them (`eventTypes`); over HTTP the
 * query parameter is snake_case (`event_types`), and one hookline does not know is ignored, not
 * refused (clients send some hookline does not serve). Its table of both names must give, for
 * each, a query parameter some list really reads, or a raw HTTP caller following it would get an
 * unfiltered list without a word.
 */
import { readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startApi, type ApiHarness } from "./harness.js";

let api: ApiHarness;
let queryNames: Set<string>;
beforeAll(async () => {
  api = await startApi();
  const doc = (await (await fetch(`${api.url}/api/v1/openapi.json`)).json()) as {
    paths: Record<string, Record<string, { parameters?: { in: string; name: string }[] }>>;
  };
  queryNames = new Set(
    Object.values(doc.paths)
      .flatMap((ops) => Object.values(ops))
      .flatMap((op) => op.parameters ?? [])
      .filter((p) => p.in === "query")
      .map((p) => p.name),
  );
});
afterAll(async () => api.close());

/** The rows of the "List filters over HTTP" table: [client names, HTTP names]. */
function filterRows(): [string[], string[]][] {
  const text = readFileSync(new URL("../../docs/api.md", import.meta.url), "utf8");
  const section = text.split("### List filters over HTTP")[1]!.split("\n## ")[0]!;
  const names = (cell: string) => [...cell.matchAll(/`([^`]+)`/g)].map((m) => m[1]!);
  return section
    .split("\n")
    .filter((line) => line.startsWith("| ") && !line.startsWith("| Svix") && !line.includes("---"))
    .map((line) => line.split("|").slice(1, 3))
    .map(([client, http]) => [names(client!), names(http!)]);
}

describe("the docs' list filters", () => {
  it("give, for every client option, a query parameter a list reads", () => {
    const rows = filterRows();
    expect(rows.length).toBeGreaterThan(5);
    for (const [client, http] of rows) {
      for (const name of http) expect(queryNames, `${client.join(", ")} → ${name}`).toContain(name);
    }
    const eventTypes = rows.find(([client]) => client.includes("eventTypes"));
    expect(eventTypes?.[1]).toEqual(["event_types"]);
  });

  it("work by their HTTP names; a client name in a query is ignored", async () => {
    const app = (await api.svix.application.create({ name: "filters" })).id;
    await api.svix.message.create(app, { eventType: "a.one", payload: {} });
    await api.svix.message.create(app, { eventType: "b.two", payload: {} });
    const types = async (query: string) => {
      const res = await api.call("GET", `/api/v1/app/${app}/msg?${query}`);
      expect(res.status).toBe(200);
      const page = (await res.json()) as { data: { eventType: string }[] };
      return page.data.map((m) => m.eventType).sort();
    };
    expect(await types("event_types=a.one")).toEqual(["a.one"]);
    expect(await types("eventTypes=a.one")).toEqual(["a.one", "b.two"]);
  });
});
