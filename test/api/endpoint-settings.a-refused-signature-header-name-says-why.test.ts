/**
 * A custom header named like a signature header (`svix-…`, `webhook-…`) is refused with a reason
 * that holds: hookline sends no `svix-*` header and no `webhook-*` one beyond its three, so
 * "is set by hookline" sent the user looking for a header that never arrives. The refusal says
 * that receivers' verifying libraries read such names. Headers hookline does set keep their
 * message.
 */
import { afterAll, beforeAll, expect, it } from "vitest";
import { startApi, type ApiHarness } from "./harness.js";

let api: ApiHarness;
let appId = "";
beforeAll(async () => {
  api = await startApi();
  appId = (await api.svix.application.create({ name: "header reasons" })).id;
});
afterAll(async () => api.close());

interface Problem {
  loc: string[];
  msg: string;
  type: string;
}

async function problemFor(name: string): Promise<Problem | undefined> {
  const res = await api.call("POST", `/api/v1/app/${appId}/endpoint`, {
    url: "https://example.com/hooks",
    headers: { [name]: "1" },
  });
  expect(res.status).toBe(422);
  const body = (await res.json()) as { detail: Problem[] };
  return body.detail.find((p) => p.loc.at(-1) === name);
}

it.each(["svix-id", "Svix-Signature", "webhook-anything", "webhook-id"])(
  "%s is refused as a signature header's name, not as one hookline sets",
  async (name) => {
    const problem = await problemFor(name);
    expect(problem?.type).toBe("header_reserved");
    expect(problem?.msg).not.toContain("is set by hookline");
    expect(problem?.msg).toContain("signature header");
    expect(problem?.msg).toContain("webhook-signature");
  },
);

it("a header hookline sets says so", async () => {
  const problem = await problemFor("User-Agent");
  expect(problem).toMatchObject({
    type: "header_reserved",
    msg: '"User-Agent" is set by hookline and cannot be overridden',
  });
});
