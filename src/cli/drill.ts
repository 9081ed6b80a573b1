/**
 * `hookline drill`: runs a failure drill on a running hookline (over its API) and prints each
 * step with its timing. Exits 1 when the drill fails, so a cron job or CI step can alert.
 */
import { Command } from "commander";
import type { z } from "zod";
import type { DrillRunOut } from "../api/schemas/observability.js";
import { ApiClient, connectionOf, withConnectionOptions } from "./client.js";
import type { CliIo, DlqDefaults } from "./dlq.js";

type DrillRun = z.output<typeof DrillRunOut>;

/** The `drill` command. */
export function drillCommand(defaults: DlqDefaults, io: CliIo): Command {
  const drill = new Command("drill").description(
    "run a failure drill: a receiver answering 503 then 200, retries, dead-lettering, a replay",
  );
  return withConnectionOptions(drill)
    .option("--json", "print the API's JSON answer, for scripts")
    .action(async (o: { url?: string; token?: string; json?: boolean }) => {
      // A drill takes as long as its steps do (each up to the server's step timeout).
      const api = new ApiClient(connectionOf(o, defaults), {}, null);
      // An API-only process answers 409: it delivers nothing, so the URL names the wrong process.
      const { body: run } = await api.post<DrillRun>("/api/v1/drill", undefined, 409);
      if (o.json) io.out.write(`${JSON.stringify(run, null, 2)}\n`);
      else {
        for (const s of run.steps) {
          const mark = s.passed ? "pass" : "FAIL";
          io.out.write(
            `${mark}  ${s.name.padEnd(16)} ${String(s.ms).padStart(6)} ms  ${s.detail}\n`,
          );
        }
        const verdict = run.passed ? "PASSED" : "FAILED";
        io.out.write(`drill ${run.id} ${verdict} in ${run.durationMs} ms\n`);
      }
      if (!run.passed) io.setExitCode(1);
    });
}
