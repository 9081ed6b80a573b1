#!/usr/bin/env node
/** The `hookline` command. Only this entry point reads the environment. */
import { Command } from "commander";
import { createHookline } from "../app.js";
import { resolveConfig } from "../config.js";
import { HooklineError } from "../errors.js";
import { dlqCommand } from "./dlq.js";
import { drillCommand } from "./drill.js";

const program = new Command();
program.name("hookline").description("Self-hostable webhook delivery service");

program
  .command("serve")
  .description("run the API and the delivery engine")
  .action(async () => {
    const config = resolveConfig(process.env);
    const hookline = createHookline(config);
    await hookline.start();
    const { logger } = hookline;
    logger.info({ url: hookline.url, dataDir: config.dataDir }, "hookline is running");
    if (!config.allowPrivateTargets) {
      logger.info(
        "endpoints on loopback or private addresses are refused (HOOKLINE_ALLOW_PRIVATE_TARGETS=1 allows them)",
      );
    }
    process.stdout.write(
      [
        "",
        `  hookline is listening on ${hookline.url}`,
        `  API:          ${hookline.url}/api/v1`,
        `  OpenAPI:      ${hookline.url}/api/v1/openapi.json`,
        `  Admin token:  ${hookline.adminToken}`,
        `  Data:         ${config.dataDir}`,
        "",
      ].join("\n") + "\n",
    );
    let stopping = false;
    const shutdown = (signal: string) => {
      if (stopping) return;
      stopping = true;
      logger.info({ signal }, "stopping: finishing deliveries in flight");
      hookline.stop().then(
        () => process.exit(0),
        (err: unknown) => {
          logger.error({ err }, "stopping failed");
          process.exit(1);
        },
      );
    };
    process.on("SIGTERM", () => shutdown("SIGTERM"));
    process.on("SIGINT", () => shutdown("SIGINT"));
  });

program.addCommand(
  dlqCommand(
    { url: process.env.HOOKLINE_URL, token: process.env.HOOKLINE_TOKEN },
    {
      out: process.stdout,
      now: () => Date.now(),
      sleep: (ms) => new Promise((r) => setTimeout(r, ms)),
      setExitCode: (code) => (process.exitCode = code),
    },
  ),
);

program.addCommand(
  drillCommand(
    { url: process.env.HOOKLINE_URL, token: process.env.HOOKLINE_TOKEN },
    {
      out: process.stdout,
      now: () => Date.now(),
      sleep: (ms) => new Promise((r) => setTimeout(r, ms)),
      setExitCode: (code) => (process.exitCode = code),
    },
  ),
);

program.parseAsync(process.argv).catch((err: unknown) => {
  if (err instanceof HooklineError) {
    process.stderr.write(`hookline: ${err.message}\n`);
  } else {
    process.stderr.write(
      `hookline: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`,
    );
  }
  process.exit(1);
});
