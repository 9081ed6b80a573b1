/**
 * A bulk replay job's reason as hookline shows it (the API, and through it `hookline dlq` and the
 * dashboard's job page), worked out as it is read.
 */
import type { ReplayJob } from "../domain/types.js";

/**
 * The reason the job's runner last wrote, save for a running job no runner holds: its runner
 * stopped (handing it back), or was killed or stalled past its lease and the lease ran out, and
 * no runner has taken it up yet, which lasts while every runner that looks has its four jobs.
 * Nothing writes that: the runner that could is gone or stalled, and one that is full has no
 * lease on the job to write it under. The reason written was about replays that runner was
 * waiting for, and read as if it still were.
 */
export function reasonShown(job: ReplayJob, now: number): string | null {
  if (job.state !== "running" || (job.leaseUntil !== null && job.leaseUntil > now)) {
    return job.reason;
  }
  const ranOut =
    job.leaseUntil === null
      ? ""
      : ` (its hold on the job ran out at ${new Date(job.leaseUntil).toISOString()})`;
  return (
    `waiting to be taken up again: the hookline process running it stopped holding it${ranOut}; ` +
    "the next process with room for another replay job takes it up and carries on where it was"
  );
}
