// The tool worker's one mapping of a tool job's retry intent onto BullMQ. The intent is decided
// by decideToolFailure (src/tools/decide-tool-failure.ts): by runToolJob for what the tool and
// its output did, here for what was thrown around it (Redis, a write tool's result not on a
// replica yet). Here it only becomes mechanics. `defer`: an effect's claim or a write tool's
// result not yet on a replica (a shard's primary without one after a failover) — the job goes
// back to the delayed set, spending no attempt. `retry`: the error is thrown, an attempt spent,
// BullMQ's backoff.
import { DelayedError, type Job } from 'bullmq';
import type { Logger } from 'pino';
import type { ToolJobData } from '../jobs/job-catalog.js';
import type { ToolJobResult } from '../tools/run-tool-job.js';
import { classifyToolFailure } from '../tools/classify-tool-failure.js';
import { decideToolFailure, NOT_DURABLE_PATIENCE_MS, NOT_DURABLE_RETRY_MS } from '../tools/decide-tool-failure.js';

type QueueEnding = Extract<ToolJobResult, { kind: 'retry' | 'defer' }>;

/** What to do about an error thrown around the tool. A fleet failure is never a crash of the tool
 * nor an invalid output, so neither the tool's idempotence nor its output mode bears on it. */
function endingOfThrown({ job, token, error }: { job: Job<ToolJobData>; token: string | undefined; error: unknown }): QueueEnding {
  const decision = decideToolFailure({
    failure: classifyToolFailure({ error, thrownBy: 'fleet', timedOut: false, outputMode: 'fail_closed' }),
    toolName: job.data.name,
    idempotent: false,
    attemptsMade: job.attemptsMade,
    maxAttempts: job.opts.attempts ?? 1,
    jobAgeMs: Date.now() - job.timestamp,
    mayDelay: Boolean(token),
    notDurablePatienceMs: NOT_DURABLE_PATIENCE_MS,
    notDurableRetryMs: NOT_DURABLE_RETRY_MS,
  });
  return decision.kind === 'defer' ? { kind: 'defer', delayMs: decision.delayMs, error } : { kind: 'retry', error };
}

/** Ends the attempt as BullMQ takes it: always throws. */
export async function returnToolJobToQueue({
  job,
  data,
  token,
  ending,
  logger,
}: {
  job: Job<ToolJobData>;
  data: ToolJobData;
  token: string | undefined;
  ending: QueueEnding | { kind: 'thrown'; error: unknown };
  logger: Logger;
}): Promise<never> {
  const decided = ending.kind === 'thrown' ? endingOfThrown({ job, token, error: ending.error }) : ending;
  if (decided.kind === 'defer' && token) {
    const message = decided.error instanceof Error ? decided.error.message : String(decided.error);
    logger.warn(
      { run_id: data.runId, step: data.turn, tool: data.name, tool_use_id: data.toolUseId, err: message },
      'tool result not durable yet; the job waits for a replica',
    );
    await job.moveToDelayed(Date.now() + decided.delayMs, token);
    throw new DelayedError();
  }
  throw decided.error;
}
