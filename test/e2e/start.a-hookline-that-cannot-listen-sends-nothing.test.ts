/**
 * The API listens last, once deliveries run. A hookline whose address could not be listened on
 * (HOOKLINE_HOST no address of this machine, a port in use) stopped start-up only at that listen,
 * after its engine had sent what was due: restarted again and again by a service manager, it went
 * on delivering while it could never serve. The address is tried before anything starts. (The
 * sends were seen with a host name whose lookup took a quarter of a second to fail; tests reach
 * no DNS, and the refusals here come at once, so these hold the order rather than time it.)
 */
import { createServer, type AddressInfo } from "node:net";
import { afterEach, expect, it } from "vitest";
import { tempDir, useCleanup } from "../support/cleanup.js";
import { startHookline } from "../support/hookline.js";
import { spawnServe, stopAfter, TEST_TOKEN } from "../support/process.js";
import { Receiver } from "../support/receiver.js";

const cleanup = useCleanup();
let rx: Receiver;
afterEach(() => rx.close());

/** A data dir holding three messages due now, for `rx`. */
async function dueMessages(): Promise<string> {
  rx = await Receiver.start(() => ({ status: 200 }));
  const dataDir = tempDir(cleanup, "hookline-no-listen-");
  const h = await startHookline({ dataDir, env: { HOOKLINE_ADMIN_TOKEN: TEST_TOKEN } });
  const app = await h.svix.application.create({ name: "Acme" });
  await h.svix.endpoint.create(app.id, { url: rx.url("/hook") });
  const soon = new Date(Date.now() + 1_500);
  for (let i = 0; i < 3; i++) {
    await h.svix.message.create(app.id, {
      eventType: "invoice.paid",
      payload: { i },
      deliverAt: soon,
    });
  }
  await h.hookline.stop();
  await new Promise((r) => setTimeout(r, 2_000));
  return dataDir;
}

/** Runs `hookline serve` on `dataDir` to its end; it must not start, so it ends by itself. */
async function serveUntilExit(dataDir: string, env: Record<string, string>) {
  const { child, exited, output } = stopAfter(
    cleanup,
    spawnServe(dataDir, { HOOKLINE_LOG_LEVEL: "silent", HOOKLINE_SENDER_THREADS: "0", ...env }),
  );
  child.stdout!.on("data", () => {
    if (/listening on/.test(output())) child.kill("SIGTERM");
  });
  return { code: await exited, output: output() };
}

it("on a host that is not an address of this machine, sends nothing and says so", async () => {
  const dataDir = await dueMessages();
  // 192.0.2.0/24 is reserved for documentation: no machine has it.
  const result = await serveUntilExit(dataDir, { HOOKLINE_HOST: "192.0.2.1" });
  expect(result.code).toBe(1);
  expect(result.output).toMatch(/HOOKLINE_HOST 192\.0\.2\.1 is not an address of this machine/);
  expect(rx.requests).toHaveLength(0);

  // Started where it can listen, it sends them all.
  const h = await startHookline({ dataDir, env: { HOOKLINE_ADMIN_TOKEN: TEST_TOKEN } });
  cleanup.push(() => h.hookline.stop());
  await expect.poll(() => rx.requests.length, { timeout: 15_000 }).toBe(3);
});

it("on a port in use, sends nothing and says so", async () => {
  const dataDir = await dueMessages();
  const taken = createServer();
  cleanup.push(() => new Promise<void>((r) => taken.close(() => r())));
  await new Promise<void>((r) => taken.listen(0, "127.0.0.1", r));
  const port = (taken.address() as AddressInfo).port;
  const result = await serveUntilExit(dataDir, { HOOKLINE_PORT: String(port) });
  expect(result.code).toBe(1);
  expect(result.output).toMatch(new RegExp(`HOOKLINE_PORT ${port} is in use`));
  expect(rx.requests).toHaveLength(0);
});
