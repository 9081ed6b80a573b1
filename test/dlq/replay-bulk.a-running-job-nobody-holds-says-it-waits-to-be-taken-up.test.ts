/**
 * On PostgreSQL a running job belongs to the runner whose lease it carries. A worker killed while
 * running one leaves it `running` with the reason it last wrote; once the lease runs out, any
 * runner with room takes it up, but while every runner is full (four jobs each) none does, and
 * the API, `hookline dlq job` and the job page went on saying "waiting for the last 3 results" as
 * if it were still running. Its reason now says, as it is read, that it waits to be taken up
 * again, and since when (so do the CLI and the job's page, which show the API's); taken up, it
 * carries on and ends as any job.
 *
 * The killed worker is a runner that claimed the job, queued its replays, wrote its reason with
 * a one-second lease and was never heard of again: a process's last writes before a `kill -9`.
 */
import { expect, it, vi } from "vitest";
import {
  anEndpoint,
  deadLetters,
  PATIENT_BREAKER,
  untilJob,
  type JobOut,
  type TestEndpoint,
} from "../support/dlq.js";
import { launchBrowser, signIn } from "../support/browser.js";
import { runDlq } from "../support/fake-api.js";
import { holdingReceiver } from "../support/held-replay.js";
import { startHookline } from "../support/hookline.js";
import { useCleanup } from "../support/cleanup.js";
import { dropSchema, freshSchemaName, TEST_DATABASE_URL } from "../support/postgres.js";
import { newId } from "../../src/ids.js";
import { PostgresStore } from "../../src/store/postgres/store.js";

const cleanup = useCleanup();

const TAKEN_UP =
  /^waiting to be taken up again: the hookline process running it stopped holding it \(its hold on the job ran out at (\S+)\); the next process with room for another replay job takes it up and carries on where it was$/;

it("says a running job nobody holds waits to be taken up again, while every runner is full", async () => {
  const schema = freshSchemaName();
  cleanup.push(() => dropSchema(schema));
  const h = await startHookline({
    env: { DATABASE_URL: TEST_DATABASE_URL, HOOKLINE_PG_SCHEMA: schema },
    overrides: { breaker: PATIENT_BREAKER },
  });
  cleanup.push(() => h.stop());
  const rx = await holdingReceiver();
  cleanup.push(() => rx.close());
  const endpoints: TestEndpoint[] = [];
  for (let i = 0; i < 5; i++) endpoints.push(await anEndpoint(h, rx.url));
  for (const ep of endpoints.slice(0, 4)) await deadLetters(h, ep, 1);
  const last = endpoints[4]!;
  await deadLetters(h, last, 3);

  // hookline's runner takes four jobs whose replays the receiver holds: it is full.
  rx.hold();
  for (const ep of endpoints.slice(0, 4)) {
    const job = await h.api<JobOut>("POST", "/api/v1/dlq/replay", {
      endpointId: ep.endpointId,
      canarySize: 0,
    });
    expect(job.status).toBe(202);
    await untilJob(h, job.body.id, (j) => j.state === "running" && j.progress.outstanding === 1);
  }
  const made = await h.api<JobOut>("POST", "/api/v1/dlq/replay", {
    endpointId: last.endpointId,
    canarySize: 0,
  });
  expect(made.status).toBe(202);
  const id = made.body.id;

  // Another worker takes the fifth up, queues its three replays, says why it waits, and is killed.
  const worker = await PostgresStore.open({
    connectionString: TEST_DATABASE_URL,
    schema,
    poolSize: 2,
  });
  cleanup.push(() => worker.close());
  const runner = newId("rnr");
  const now = Date.now();
  const lease = { now, leaseUntil: now + 1_000 };
  expect((await worker.claimReplayJobs({ ...lease, limit: 1, runner })).map((j) => j.id)).toEqual([
    id,
  ]);
  await worker.prepareReplayJob(id, now);
  const queued = await worker.enqueueJobReplays({
    jobId: id,
    runner,
    limit: 3,
    now,
    abandonAfter: null,
    newDeliveryId: () => newId("dlv", now),
  });
  expect(queued.queued).toHaveLength(3);
  const reason = "waiting for the last 3 results";
  expect(await worker.updateReplayJob({ id, runner, ...lease, reason })).not.toBeNull();
  expect((await h.api<JobOut>("GET", `/api/v1/dlq/replay/${id}`)).body.reason).toBe(reason);

  // Its lease runs out; hookline's runner, full, does not take the job up.
  const unheld = await untilJob(h, id, (j) => j.reason !== reason, 10_000);
  expect(unheld.state).toBe("running");
  const said = TAKEN_UP.exec(unheld.reason ?? "");
  expect(said, unheld.reason ?? "no reason").not.toBeNull();
  expect(Date.parse(said![1]!)).toBe(lease.leaseUntil);
  // The CLI and the job's page say what the API does.
  const shown = await runDlq(h.url, ["job", id], Date.now(), h.token);
  expect(shown.trimEnd().split("\n").at(-1)).toBe(`running — ${unheld.reason}`);
  const browser = await launchBrowser();
  cleanup.push(() => browser.close());
  const page = await browser.newPage();
  await signIn(page, h.url, h.token);
  await page.goto(`${h.url}/ui/#/jobs/${id}`);
  await page.getByTestId("job-state").getByText("running").waitFor();
  await page.locator("p", { hasText: /^waiting to be taken up again: / }).waitFor();

  // The four end: hookline's runner takes the job up and finishes it.
  await vi.waitFor(() => expect(rx.held).toBe(7), { timeout: 20_000 });
  rx.answerHeld(200);
  const ended = await untilJob(h, id, (j) => j.state !== "running", 30_000);
  expect(ended).toMatchObject({
    state: "completed",
    reason: "3 selected: 3 delivered, 0 failed, 0 skipped",
  });
}, 90_000);
