// Submitting many runs through the REST API and waiting for them at a cost that does not grow with
// their number: while runs are in flight the bench asks only for the queues' job counts (one
// request), and reads the runs themselves (all pages of GET /v1/runs) once, at the end.
import { isSettled, unfinishedJobs, type FleetRestClient, type QueueCounts } from './fleet-rest-client.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export interface SubmittedRuns {
  ids: string[];
  failures: number;
  firstError: string | null;
}

/** POSTs `count` runs, `batchSize` at a time (each batch concurrently), until `deadline`.
 * `onBatch` hears how many were accepted so far after each batch. */
export async function submitRuns({
  rest,
  count,
  batchSize,
  deadline,
  onBatch,
}: {
  rest: FleetRestClient;
  count: number;
  batchSize: number;
  deadline: number;
  onBatch?: (submitted: number) => void;
}): Promise<SubmittedRuns> {
  const ids: string[] = [];
  let failures = 0;
  let firstError: string | null = null;
  for (let index = 0; index < count && Date.now() < deadline; index += batchSize) {
    const batch = await Promise.allSettled(
      Array.from({ length: Math.min(batchSize, count - index) }, (_, offset) =>
        rest.submitRun({ prompt: `Build a small website for bakery number ${index + offset + 1}.` }),
      ),
    );
    for (const outcome of batch) {
      if (outcome.status === 'fulfilled') ids.push(outcome.value);
      else {
        failures += 1;
        firstError ??= outcome.reason instanceof Error ? outcome.reason.message : String(outcome.reason);
      }
    }
    onBatch?.(ids.length);
  }
  return { ids, failures, firstError };
}

/** A run in flight holds one model-queue job (see unfinishedJobs), and for a moment two: a model
 * job that has just added its run's next turn is still active until it completes. So the runs in
 * flight are at most the model-queue jobs and at most the runs submitted (`submitted`). */
export function inFlight({ counts, submitted = Number.POSITIVE_INFINITY }: { counts: QueueCounts; submitted?: number }): { runs: number; toolJobs: number } {
  return { runs: Math.min(submitted, unfinishedJobs(counts.model)), toolJobs: unfinishedJobs(counts.tool) };
}

export interface FollowedRuns {
  /** performance.now() when the queues were first seen empty (or the deadline passed). */
  endedAt: number;
  timedOut: boolean;
  /** Most runs seen in flight at once (model-queue jobs not finished). */
  peakInFlight: number;
}

/** Polls the queue counts every `intervalMs` until no job is left unfinished or `deadline` passes.
 * `onPoll` runs after each poll (sampling memory, metrics…). */
export async function waitUntilQueuesDrain({
  rest,
  deadline,
  intervalMs,
  submitted,
  onPoll,
}: {
  rest: FleetRestClient;
  deadline: number;
  intervalMs: number;
  /** Runs submitted (caps the in-flight count, see inFlight). */
  submitted?: number;
  onPoll?: (counts: QueueCounts) => Promise<void> | void;
}): Promise<FollowedRuns> {
  let peakInFlight = 0;
  for (;;) {
    const counts = await rest.queueCounts();
    const now = performance.now();
    const { runs, toolJobs } = inFlight({ counts, submitted });
    peakInFlight = Math.max(peakInFlight, runs);
    await onPoll?.(counts);
    if (runs === 0 && toolJobs === 0) return { endedAt: now, timedOut: false, peakInFlight };
    if (Date.now() > deadline) return { endedAt: now, timedOut: true, peakInFlight };
    await sleep(intervalMs);
  }
}

export interface RunOutcomes {
  finished: number;
  succeeded: number;
  turns: number;
  byStatus: Record<string, number>;
}

/** Status and turns of the given runs, read once through GET /v1/runs (all pages). */
export async function readRunOutcomes({ rest, ids }: { rest: FleetRestClient; ids: readonly string[] }): Promise<RunOutcomes> {
  const wanted = new Set(ids);
  const byStatus: Record<string, number> = {};
  let finished = 0;
  let succeeded = 0;
  let turns = 0;
  for (const run of await rest.listRuns()) {
    if (!wanted.has(run.id)) continue;
    byStatus[run.status] = (byStatus[run.status] ?? 0) + 1;
    if (isSettled(run.status)) finished += 1;
    if (run.status === 'succeeded') succeeded += 1;
    turns += run.turn;
  }
  return { finished, succeeded, turns, byStatus };
}
