import { describe, expect, it } from "vitest";
import { startApi } from "./harness.js";

describe("GET /api/v1/health", () => {
  it("answers 204 without a token while the store works, and 503 once it does not", async () => {
    const api = await startApi();
    try {
      await expect(api.svix.health.get()).resolves.toBeUndefined();
      const ok = await fetch(`${api.url}/api/v1/health`);
      expect(ok.status).toBe(204);
      await api.store.close();
      const down = await fetch(`${api.url}/api/v1/health`);
      expect(down.status).toBe(503);
      expect(await down.json()).toMatchObject({ code: "store_unavailable" });
    } finally {
      await api.close();
    }
  });
});
