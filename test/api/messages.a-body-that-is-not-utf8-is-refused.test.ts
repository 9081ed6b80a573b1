/**
 * JSON sent between systems is UTF-8. A body with a byte that is not (a Latin-1 "é" from an old
 * client, a truncated multibyte character) was read with U+FFFD in its place, accepted, and its
 * payload stored, signed and delivered other than the caller sent it, with nothing said. It is
 * refused (400) and nothing is written.
 */
import { afterAll, beforeAll, expect, it } from "vitest";
import { startApi, type ApiHarness } from "./harness.js";

let api: ApiHarness;
beforeAll(async () => {
  api = await startApi();
});
afterAll(() => api.close());

const send = (path: string, body: Buffer) =>
  fetch(api.url + path, {
    method: "POST",
    headers: { authorization: `Bearer ${api.token}`, "content-type": "application/json" },
    body,
  });

it("a message whose payload holds a byte that is not UTF-8 is refused, and nothing is stored", async () => {
  const app = await api.svix.application.create({ name: "Acme" });
  const latin1 = Buffer.concat([
    Buffer.from('{"eventType":"invoice.paid","payload":{"name":"Ren'),
    Buffer.from([0xe9]),
    Buffer.from('e"}}'),
  ]);
  const res = await send(`/api/v1/app/${app.id}/msg`, latin1);
  expect(res.status).toBe(400);
  expect(await res.json()).toEqual({
    code: "invalid_json",
    detail: "the body is not valid UTF-8, which JSON sent to hookline must be",
  });
  expect((await api.svix.message.list(app.id)).data).toEqual([]);

  // The same name in UTF-8 is taken, byte for byte.
  const utf8 = Buffer.from('{"eventType":"invoice.paid","payload":{"name":"Renée"}}');
  const ok = await send(`/api/v1/app/${app.id}/msg`, utf8);
  expect(ok.status).toBe(202);
  const [msg] = (await api.svix.message.list(app.id)).data;
  expect(msg?.payload).toEqual({ name: "Renée" });
});

it("so is any other body that is not UTF-8", async () => {
  const body = Buffer.concat([
    Buffer.from('{"name":"Ren'),
    Buffer.from([0xe9]),
    Buffer.from('e"}'),
  ]);
  const res = await send("/api/v1/app", body);
  expect(res.status).toBe(400);
  expect(await res.json()).toMatchObject({ code: "invalid_json" });
});
