/**
 * Scenario 1's client, run as its own process: the least a sender can do per webhook. It signs
 * each POST as Standard Webhooks does (HMAC-SHA256 over "id.timestamp.body") and sends it through
 * an undici keep-alive Agent to the receiver, with `concurrency` requests in flight: no queue, no
 * storage. Reads its settings from argv and reports over IPC.
 */
import { createHmac, randomBytes } from "node:crypto";
import { Agent, request } from "undici";
import { samplePayload } from "./backlog.js";
import { idleBetween, readCpuTotals } from "./machine.js";

const [url, concurrencyArg, warmupArg, durationArg] = process.argv.slice(2);
const concurrency = Number(concurrencyArg);
const warmupMs = Number(warmupArg);
const durationMs = Number(durationArg);

const key = randomBytes(24);
const agent = new Agent({
  keepAliveTimeout: 30_000,
  keepAliveMaxTimeout: 120_000,
  connections: null,
  pipelining: 1,
});
const bodies = Array.from({ length: 1024 }, (_, i) => samplePayload(i));

let seq = 0;
let counted = 0;
let errors = 0;
let counting = false;
let stop = false;

async function one(): Promise<void> {
  const n = seq++;
  const body = bodies[n & 1023]!;
  const id = `msg_${n.toString(36).padStart(26, "0")}`;
  const ts = Math.floor(Date.now() / 1000);
  const sig = createHmac("sha256", key).update(`${id}.${ts}.`).update(body).digest("base64");
  const res = await request(url!, {
    method: "POST",
    dispatcher: agent,
    headers: {
      "content-type": "application/json",
      "user-agent": "bench-ceiling/1",
      "webhook-id": id,
      "webhook-timestamp": String(ts),
      "webhook-signature": `v1,${sig}`,
    },
    body,
  });
  await res.body.text();
  if (res.statusCode !== 200) errors++;
  if (counting) counted++;
}

async function worker(): Promise<void> {
  while (!stop) {
    try {
      await one();
    } catch {
      errors++;
    }
  }
}

const workers = Array.from({ length: concurrency }, worker);
await new Promise((r) => setTimeout(r, warmupMs));
counting = true;
const t0 = performance.now();
const cpu0 = process.cpuUsage();
const totals0 = readCpuTotals();
await new Promise((r) => setTimeout(r, durationMs));
const machineIdle = idleBetween(totals0, readCpuTotals());
counting = false;
const elapsed = performance.now() - t0;
const cpu = process.cpuUsage(cpu0);
// The client's own CPU per request (all its threads): what hookline's per-delivery CPU compares to.
const cpuUsPerRequest = counted ? (cpu.user + cpu.system) / counted : null;
stop = true;
await Promise.all(workers);
await agent.close();
process.send?.({
  requests: counted,
  elapsedMs: elapsed,
  rate: (counted / elapsed) * 1000,
  errors,
  cpuUsPerRequest,
  machineIdle,
});
process.disconnect?.();
