/**
 * A POST with an idempotency key to a path that names nothing that can exist (a parameter longer
 * than any id or uid, or 256 characters of CJK where ids and uids are ASCII) is answered as the
 * route answers it, 422 or 404, on PostgreSQL as on SQLite. The key's scope is the path, and
 * PostgreSQL's index of keys cannot hold a scope that long: holding the key answered 500.
 */
import { randomBytes, randomInt } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startHooklineOn, type TestHookline } from "../support/hookline.js";

/** `n` characters that barely compress: random letters and digits, or random CJK ideographs. */
const ascii = (n: number) => randomBytes(n).toString("base64url").slice(0, n);
const cjk = (n: number) =>
  Array.from({ length: n }, () => String.fromCodePoint(randomInt(0x4e00, 0xa000))).join("");

describe.each(["sqlite", "postgres"] as const)("on %s", (kind) => {
  let t: TestHookline;
  beforeAll(async () => {
    t = await startHooklineOn(kind);
  });
  afterAll(() => t.stop());

  const resend = async (param: () => string, key = ascii(256)) => {
    const [app, msg, ep] = [param(), param(), param()].map(encodeURIComponent);
    const res = await fetch(`${t.url}/api/v1/app/${app}/msg/${msg}/endpoint/${ep}/resend`, {
      method: "POST",
      headers: { authorization: `Bearer ${t.token}`, "idempotency-key": key },
    });
    return res.status;
  };

  it("answers a parameter longer than any id or uid 422", async () => {
    expect(await resend(() => ascii(1_000))).toBe(422);
  });

  it("answers parameters of CJK characters 404", async () => {
    // A header is read as Latin-1: each of these is two bytes once stored.
    const latin1 = Array.from({ length: 256 }, () => String.fromCharCode(randomInt(0xa0, 0x100)));
    expect(await resend(() => cjk(256), latin1.join(""))).toBe(404);
  });
});
