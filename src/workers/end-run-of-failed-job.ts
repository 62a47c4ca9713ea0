// A model job that failed for good ends its run. A turn turns every failure it knows into a
// decision (a retry, a run end), so its job fails for good only when something outside it failed
// every attempt — Redis, a bug, data that does not decode, a job that stalled more than BullMQ
// allows — and then nothing else would ever end its run: it would stay `running`, holding its
// tenant's active-run slot. This ends it, through the engine's one end.
//
// Tool jobs are not ended here: a tool failure is data. A tool job that fails for good lets its
// parent turn run without it (ignoreDependencyOnFailure, src/jobs/fleet-queues.ts), and the turn
// tells the model the call failed after its attempts (src/agent/turn-input.ts); ending the run
// as well would race that turn's (paid) model call.
import type { Job } from 'bullmq';
import type { Logger } from 'pino';
import type { RunEngine } from '../engine/index.js';
import { jobRunReferenceSchema, QUEUE_NAMES } from '../jobs/job-catalog.js';

/**
 * Whether a 'failed' event is the job's last: BullMQ emits one after every failed attempt, and
 * retries while `attemptsMade + 1 < attempts` unless the error is an UnrecoverableError
 * (Job.shouldRetryJob, bullmq 5); by the event, attemptsMade counts the failed attempt
 * (Job.moveToFailed increments it). A job that stalled too often fails with an
 * UnrecoverableError too (Worker.getUnrecoverableErrorMessage: "job stalled more than allowable limit").
 */
export function isFinalFailure(failure: { attemptsMade: number; attempts: number | undefined; errorName: string }): boolean {
  if (failure.errorName === 'UnrecoverableError') return true;
  return failure.attemptsMade >= Math.max(1, failure.attempts ?? 1);
}

export type FailedJobOutcome = 'retrying' | 'not_failed' | 'no_run' | 'ended' | 'run_already_ended';

/** Ends the run of a model job that failed for good with `job_attempts_exhausted`, once
 * (RunEngine.endRun: a run that ended already is left as it is). Returns what it did, for the log and tests. */
export async function endRunOfFailedModelJob(context: { store: RunEngine; logger: Logger }, failure: { job: Job; error: Error }): Promise<FailedJobOutcome> {
  const { job, error } = failure;
  const queue = QUEUE_NAMES.model;
  if (!isFinalFailure({ attemptsMade: job.attemptsMade, attempts: job.opts.attempts, errorName: error.name })) return 'retrying';
  // The event is emitted even when the attempt lost its lock and another worker has the job (its
  // moveToFailed then fails): only a job BullMQ holds as failed ends its run.
  if ((await job.getState()) !== 'failed') return 'not_failed';
  const reference = jobRunReferenceSchema.safeParse(job.data);
  if (!reference.success) {
    context.logger.error({ queue, job_id: job.id, err: error.message }, 'a job failed for good and names no run');
    return 'no_run';
  }
  const { runId, turn } = reference.data;
  // A job that failed before its turn started names the run's turn: a turn's job exists only once
  // the turn before committed its answer, and that commit moved the run's record to this turn. So
  // a resume (RunEngine.reopenFailedRun, at the record's turn) reopens the turn this job carried,
  // under a job id of its own (`-reopen-<k>`): this one keeps its id in the failed set, unused.
  const ended = await context.store.endRun(
    runId,
    turn,
    'failed',
    {
      error: {
        code: 'job_attempts_exhausted',
        message: `The model job ${job.id} (turn ${turn}) failed for good after ${job.attemptsMade} attempt(s): ${error.message}`,
      },
    },
    [{ event: 'job-fail', level: 'warn', queue, job_id: job.id ?? '', attempts_made: job.attemptsMade, reason: error.message }],
  );
  return ended ? 'ended' : 'run_already_ended';
}
