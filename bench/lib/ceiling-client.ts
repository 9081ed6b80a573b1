/**
 * Scenario 1's client, run as its own process: the least a sender can do per webhook. It signs
 * each POST as Standard Webhooks does (HMAC-SHA256 over "id.timestamp.body") and sends it through
 * an undici keep-alive Agent to the receiver, with `concurrency` requests in flight: no queue, no
 * storage. Reads its settings from argv and reports over IPC.
 */
import { randomBytes } from "node:crypto";
import { request } from "undici";
import { samplePayload } from "./backlog.js";
import { idleBetween, readCpuTotals } from "./machine.js";
import { keepAliveAgent, signedHeaders } from "./signed-post.js";

const [url, concurrencyArg, warmupArg, durationArg] = process.argv.slice(2);
const concurrency = Number(concurrencyArg);
const warmupMs = Number(warmupArg);
const durationMs = Number(durationArg);

const key = randomBytes(24);
const agent = keepAliveAgent();
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
  const res = await request(url!, {
    method: "POST",
    dispatcher: agent,
    headers: signedHeaders(key, id, body, "bench-ceiling/1"),
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
