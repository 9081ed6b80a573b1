/**
 * An application's name is how people pick it out in lists and the console; one of spaces alone
 * showed as an empty row nobody could click. Such a name is refused (422 naming body.name) on
 * create, PUT and PATCH, and nothing is written.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startApi, type ApiHarness } from "./harness.js";

let api: ApiHarness;
beforeAll(async () => {
  api = await startApi();
});
afterAll(async () => api.close());

const names = async (): Promise<string[]> => {
  const res = await api.call("GET", "/api/v1/app");
  return ((await res.json()) as { data: { name: string }[] }).data.map((a) => a.name);
};

const refusal = async (res: Response) => {
  expect(res.status).toBe(422);
  const body = (await res.json()) as { detail: { loc: unknown[]; msg: string }[] };
  return body.detail.map((p) => [p.loc.join("."), p.msg]);
};

describe("an application name of spaces alone", () => {
  it("is refused on create, naming body.name, and nothing is created", async () => {
    for (const name of ["   ", "\t\n"]) {
      expect(await refusal(await api.call("POST", "/api/v1/app", { name }))).toEqual([
        ["body.name", "must not be blank"],
      ]);
    }
    expect(await names()).toEqual([]);
  });

  it("is refused on PUT and PATCH, and the name is kept", async () => {
    const app = await api.svix.application.create({ name: "Shop", uid: "shop" });
    for (const [method, path] of [
      ["PUT", `/api/v1/app/${app.id}`],
      ["PATCH", `/api/v1/app/${app.id}`],
      ["PUT", "/api/v1/app/not-yet"],
    ] as const) {
      expect(await refusal(await api.call(method, path, { name: "  " }))).toEqual([
        ["body.name", "must not be blank"],
      ]);
    }
    expect(await names()).toEqual(["Shop"]);
  });

  it("keeps names with spaces around other characters as sent", async () => {
    const app = await api.svix.application.create({ name: "  Shop EU " });
    expect(app.name).toBe("  Shop EU ");
  });
});
