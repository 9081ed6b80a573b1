import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { apiRoutes } from "../../src/api/server.js";
import { startApi, type ApiHarness } from "./harness.js";

let api: ApiHarness;
let doc: {
  openapi: string;
  paths: Record<string, Record<string, Record<string, unknown>>>;
};
beforeAll(async () => {
  api = await startApi();
  doc = (await (await fetch(`${api.url}/api/v1/openapi.json`)).json()) as typeof doc;
});
afterAll(async () => api.close());

const EXPECTED: [string, string][] = [
  ["get", "/api/v1/health"],
  ["get", "/api/v1/openapi.json"],
  ["get", "/metrics"],
  ["get", "/api/v1/alerts"],
  ["get", "/api/v1/stats"],
  ["get", "/api/v1/health/ready"],
  ["post", "/api/v1/drill"],
  ["get", "/api/v1/drill"],
  ["get", "/api/v1/operational-webhook/endpoint"],
  ["post", "/api/v1/operational-webhook/endpoint"],
  ["get", "/api/v1/operational-webhook/endpoint/{endpoint_id}"],
  ["put", "/api/v1/operational-webhook/endpoint/{endpoint_id}"],
  ["delete", "/api/v1/operational-webhook/endpoint/{endpoint_id}"],
  ["get", "/api/v1/operational-webhook/endpoint/{endpoint_id}/secret"],
  ["post", "/api/v1/operational-webhook/endpoint/{endpoint_id}/secret/rotate"],
  ["get", "/api/v1/operational-webhook/endpoint/{endpoint_id}/headers"],
  ["put", "/api/v1/operational-webhook/endpoint/{endpoint_id}/headers"],
  ["get", "/api/v1/app"],
  ["post", "/api/v1/app"],
  ["get", "/api/v1/app/{app_id}"],
  ["put", "/api/v1/app/{app_id}"],
  ["patch", "/api/v1/app/{app_id}"],
  ["delete", "/api/v1/app/{app_id}"],
  ["get", "/api/v1/app/{app_id}/endpoint"],
  ["post", "/api/v1/app/{app_id}/endpoint"],
  ["get", "/api/v1/app/{app_id}/endpoint/{endpoint_id}"],
  ["put", "/api/v1/app/{app_id}/endpoint/{endpoint_id}"],
  ["patch", "/api/v1/app/{app_id}/endpoint/{endpoint_id}"],
  ["delete", "/api/v1/app/{app_id}/endpoint/{endpoint_id}"],
  ["get", "/api/v1/app/{app_id}/endpoint/{endpoint_id}/secret"],
  ["post", "/api/v1/app/{app_id}/endpoint/{endpoint_id}/secret/rotate"],
  ["get", "/api/v1/app/{app_id}/endpoint/{endpoint_id}/headers"],
  ["put", "/api/v1/app/{app_id}/endpoint/{endpoint_id}/headers"],
  ["patch", "/api/v1/app/{app_id}/endpoint/{endpoint_id}/headers"],
  ["get", "/api/v1/app/{app_id}/endpoint/{endpoint_id}/circuit"],
  ["get", "/api/v1/app/{app_id}/endpoint/{endpoint_id}/retry-schedule"],
  ["get", "/api/v1/app/{app_id}/endpoint/{endpoint_id}/delivery-policy"],
  ["put", "/api/v1/app/{app_id}/endpoint/{endpoint_id}/delivery-policy"],
  ["get", "/api/v1/app/{app_id}/delivery-policy"],
  ["put", "/api/v1/app/{app_id}/delivery-policy"],
  ["get", "/api/v1/event-type"],
  ["post", "/api/v1/event-type"],
  ["get", "/api/v1/event-type/{event_type_name}"],
  ["put", "/api/v1/event-type/{event_type_name}"],
  ["patch", "/api/v1/event-type/{event_type_name}"],
  ["delete", "/api/v1/event-type/{event_type_name}"],
  ["get", "/api/v1/app/{app_id}/msg"],
  ["post", "/api/v1/app/{app_id}/msg"],
  ["get", "/api/v1/app/{app_id}/msg/{msg_id}"],
  ["get", "/api/v1/app/{app_id}/attempt/endpoint/{endpoint_id}"],
  ["get", "/api/v1/app/{app_id}/attempt/msg/{msg_id}"],
  ["get", "/api/v1/app/{app_id}/msg/{msg_id}/attempt/{attempt_id}"],
  ["get", "/api/v1/app/{app_id}/msg/{msg_id}/endpoint"],
  ["post", "/api/v1/app/{app_id}/msg/{msg_id}/endpoint/{endpoint_id}/resend"],
  ["post", "/api/v1/app/{app_id}/msg/precheck/active"],
  ["get", "/api/v1/app/{app_id}/endpoint/{endpoint_id}/msg"],
  ["get", "/api/v1/dlq"],
  ["get", "/api/v1/dlq/summary"],
  ["get", "/api/v1/dlq/overflow"],
  ["get", "/api/v1/dlq/{dlq_id}"],
  ["post", "/api/v1/dlq/{dlq_id}/replay"],
  ["post", "/api/v1/dlq/{dlq_id}/resolve"],
  ["post", "/api/v1/dlq/{dlq_id}/abandon"],
  ["post", "/api/v1/dlq/replay"],
  ["get", "/api/v1/dlq/replay/{job_id}"],
  ["post", "/api/v1/dlq/replay/{job_id}/cancel"],
  ["post", "/api/v1/app/{app_id}/endpoint/{endpoint_id}/recover"],
  ["post", "/api/v1/tokens"],
  ["get", "/api/v1/tokens"],
  ["delete", "/api/v1/tokens/{token_id}"],
  ["post", "/api/v1/app/{app_id}/endpoint/{endpoint_id}/send-example"],
  ["get", "/api/v1/app/{app_id}/endpoint/{endpoint_id}/stats"],
  ["get", "/api/v1/app/{app_id}/endpoint/{endpoint_id}/attempt-stats"],
  ["get", "/api/v1/app/{app_id}/endpoint-health"],
  ["get", "/api/v1/dlq/replay"],
  ["post", "/api/v1/auth/app-portal-access/{app_id}"],
  ["post", "/api/v1/auth/app/{app_id}/expire-all"],
  ["post", "/api/v1/auth/logout"],
];

const EXTENSIONS = [
  "/api/v1/app/{app_id}/endpoint/{endpoint_id}/circuit",
  "/api/v1/app/{app_id}/endpoint/{endpoint_id}/retry-schedule",
  "/api/v1/app/{app_id}/endpoint/{endpoint_id}/delivery-policy",
  "/api/v1/app/{app_id}/delivery-policy",
  "/api/v1/dlq",
  "/api/v1/dlq/summary",
  "/api/v1/dlq/overflow",
  "/api/v1/dlq/{dlq_id}",
  "/api/v1/dlq/{dlq_id}/replay",
  "/api/v1/dlq/{dlq_id}/resolve",
  "/api/v1/dlq/{dlq_id}/abandon",
  "/api/v1/dlq/replay",
  "/api/v1/dlq/replay/{job_id}",
  "/api/v1/dlq/replay/{job_id}/cancel",
  "/api/v1/tokens",
  "/api/v1/tokens/{token_id}",
  "/api/v1/app/{app_id}/endpoint/{endpoint_id}/attempt-stats",
  "/api/v1/app/{app_id}/endpoint-health",
  "/metrics",
  "/api/v1/alerts",
  "/api/v1/stats",
  "/api/v1/health/ready",
  "/api/v1/drill",
];

describe("the OpenAPI document", () => {
  it("is OpenAPI 3.1 and lists every route the API serves, and no other", async () => {
    expect(doc.openapi).toBe("3.1.0");
    const listed = Object.entries(doc.paths).flatMap(([path, ops]) =>
      Object.keys(ops).map((method) => `${method} ${path}`),
    );
    expect(listed.sort()).toEqual(EXPECTED.map(([m, p]) => `${m} ${p}`).sort());
  });

  it("matches the routes registered on the server", () => {
    const served = apiRoutes({} as never).map((r) => `${r.method.toLowerCase()} ${r.path}`);
    expect(served.sort()).toEqual(EXPECTED.map(([m, p]) => `${m} ${p}`).sort());
  });

  it("marks hookline's extensions, paths and fields alike", () => {
    for (const path of EXTENSIONS) {
      for (const op of Object.values(doc.paths[path]!)) {
        expect(op["x-hookline-extension"], path).toBe(true);
      }
    }
    expect(doc.paths["/api/v1/app"]!.get!["x-hookline-extension"]).toBeUndefined();
    // The Svix recover call is Svix's, not an extension.
    const recover = doc.paths["/api/v1/app/{app_id}/endpoint/{endpoint_id}/recover"]!.post!;
    expect(recover["x-hookline-extension"]).toBeUndefined();
    const endpointOut = JSON.stringify(
      doc.paths["/api/v1/app/{app_id}/endpoint/{endpoint_id}"]!.get!.responses,
    );
    expect(endpointOut).toContain('"circuit"');
    expect(endpointOut).toContain('"x-hookline-extension":true');
  });

  it("gives request and response schemas from the validators", () => {
    const create = doc.paths["/api/v1/app/{app_id}/endpoint"]!.post!;
    const schema = (
      create.requestBody as { content: Record<string, { schema: Record<string, unknown> }> }
    ).content["application/json"]!.schema;
    expect(schema.required).toEqual(["url"]);
    expect(Object.keys(schema.properties as object)).toEqual(
      expect.arrayContaining(["url", "secret", "filterTypes", "channels", "deliveryPolicy"]),
    );
    const params = doc.paths["/api/v1/app"]!.get!.parameters as { name: string; in: string }[];
    expect(params.map((p) => p.name)).toEqual(
      expect.arrayContaining(["limit", "iterator", "order"]),
    );
    expect(doc.paths["/api/v1/app/{app_id}/msg"]!.post!.responses).toHaveProperty("202");
  });
});
