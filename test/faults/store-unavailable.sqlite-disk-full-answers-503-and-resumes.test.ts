/**
 * The disk under SQLite fills up: a real fault, made by lowering the file size limit of the
 * running hookline process (prlimit --fsize; the process gets EFBIG on every write, as on a full
 * disk). File permissions would not do: the tests run as root, and an open file stays writable.
 * The API answers 503 and accepts nothing; deliveries resume by themselves once writes work again.
 */
import { execFileSync } from "node:child_process";
import { expect, it } from "vitest";
import { tempDir, useCleanup } from "../support/cleanup.js";
import { GatedReceiver } from "../support/gated-receiver.js";
import { call, spawnHookline, stopAfter, TEST_TOKEN } from "../support/process.js";

const cleanup = useCleanup();

/** Sets the process's file size limit as `soft:hard`; only the soft one moves, so it can go back up. */
const fileSizeLimit = (pid: number, limit: string) =>
  execFileSync("prlimit", ["--pid", String(pid), `--fsize=${limit}`]);

/** Asks until `check` holds: waits for a state, never for a time. */
async function until(check: () => Promise<boolean>): Promise<void> {
  while (!(await check())) await new Promise((r) => setTimeout(r, 50));
}

it("answers 503 while SQLite cannot write, then records and delivers again on its own", async () => {
  const dir = tempDir(cleanup, "hookline-full-");
  const rx = await GatedReceiver.start();
  cleanup.push(() => rx.close());
  const proc = stopAfter(cleanup, await spawnHookline(dir), "SIGKILL");
  const pid = proc.child.pid!;
  await call(proc.url, "POST", "/api/v1/app", { name: "acme", uid: "acme" });
  await call(proc.url, "POST", "/api/v1/app/acme/endpoint", { url: rx.url(), uid: "main" });
  const first = await call<{ id: string }>(proc.url, "POST", "/api/v1/app/acme/msg", {
    eventType: "order.paid",
    payload: { n: 1 },
  });
  await rx.arrived(1);

  // The disk is full while the first delivery is in flight.
  fileSizeLimit(pid, "1:unlimited");
  rx.release();
  const refused = await fetch(`${proc.url}/api/v1/app/acme/msg`, {
    method: "POST",
    headers: { authorization: `Bearer ${TEST_TOKEN}`, "content-type": "application/json" },
    body: JSON.stringify({ eventType: "order.paid", eventId: "while-full", payload: { n: 2 } }),
  });
  expect(refused.status).toBe(503);
  expect(refused.headers.get("retry-after")).toMatch(/^\d+$/);
  expect(await refused.json()).toMatchObject({ code: "store_unavailable" });

  // The engine met the fault too: the outcome of the delivery in flight could not be recorded.
  await until(async () => proc.output().includes("recording attempt outcomes failed"));
  fileSizeLimit(pid, "unlimited:unlimited");
  const attemptsOf = (id: string) =>
    call<{ data: { status: number }[] }>(proc.url, "GET", `/api/v1/app/acme/attempt/msg/${id}`);
  await until(async () => (await attemptsOf(first.body.id)).body.data.length > 0);
  const later = await call<{ id: string }>(proc.url, "POST", "/api/v1/app/acme/msg", {
    eventType: "order.paid",
    payload: { n: 3 },
  });
  expect(later.status).toBe(202);
  await until(async () => (await attemptsOf(later.body.id)).body.data.length > 0);

  const listed = await call<{ data: { id: string; eventId: string | null }[] }>(
    proc.url,
    "GET",
    "/api/v1/app/acme/msg",
  );
  expect(listed.body.data.map((m) => m.id).sort()).toEqual([first.body.id, later.body.id].sort());
  expect(proc.child.exitCode).toBeNull();
});
