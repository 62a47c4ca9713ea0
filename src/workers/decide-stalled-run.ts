// What the reaper does with a run that made no transition for the grace period, decided from the
// engine's view of its turn and the BullMQ states of the jobs that turn should have — pure, so
// every case is tested without a queue (decide-stalled-run.test.ts).
import type { JobState } from 'bullmq';
import type { PlannedDispatch } from '../engine/index.js';

export type ObservedJobState = JobState | 'unknown';

/** States in which a job still moves by itself: waiting for a worker, running, in backoff, or
 * waiting for its children. ('paused' queues are skipped before anything is judged.) */
const LIVE_STATES: ReadonlySet<ObservedJobState> = new Set<ObservedJobState>(['waiting', 'active', 'delayed', 'prioritized', 'waiting-children']);

export function isLiveJobState(state: ObservedJobState): boolean {
  return LIVE_STATES.has(state);
}

export interface StalledRunView {
  /** Every model job that may carry the turn — its own id first, then a resume after ask_user,
   * the job that claimed it, the reaper's earlier recoveries — with its state. */
  modelJobs: Array<{ jobId: string; state: ObservedJobState }>;
  /** The turn's own deterministic job id (jobIds.modelTurn). */
  ownJobId: string;
  /** The id the next recovery would get (jobIds.modelRecovery with recoveries + 1). */
  nextRecoveryJobId: string;
  /** The tool calls the previous turn handed to the tool queue, with their ledger and job states. */
  tools: Array<{ call: PlannedDispatch; recorded: boolean; state: ObservedJobState }>;
  recoveries: number;
  maxRecoveries: number;
}

export type StalledRunDecision =
  /** A job still moves: nothing to do. */
  | { kind: 'alive' }
  /** The turn's job waits for children of which some were lost: add them again, same ids. */
  | { kind: 'add_children'; parentJobId: string; calls: PlannedDispatch[] }
  /** No job carries the turn: hand it to `jobId`, with the lost tool calls as its children. */
  | { kind: 'resume'; jobId: string; reason: 'model_job_missing' | 'model_job_dead'; calls: PlannedDispatch[] }
  /** `job_attempts_exhausted`: a job of the turn failed for good and nothing ended the run;
   * `run_stalled`: the turn was handed on maxRecoveries times already. */
  | { kind: 'end'; code: 'job_attempts_exhausted'; failedJobId: string }
  | { kind: 'end'; code: 'run_stalled' };

export function decideStalledRun(view: StalledRunView): StalledRunDecision {
  // A tool job still running (or queued) is progress even when its parent is gone: wait for it,
  // so its result is in the ledger before a new parent reads it.
  if (view.tools.some((tool) => isLiveJobState(tool.state))) return { kind: 'alive' };
  const lostCalls = view.tools.filter((tool) => tool.state === 'unknown');
  const live = view.modelJobs.filter((job) => isLiveJobState(job.state));
  const waitingParent = live.find((job) => job.state === 'waiting-children');
  if (live.some((job) => job.state !== 'waiting-children')) return { kind: 'alive' };
  if (waitingParent) {
    // Its children are all finished or lost, yet it waits: a lost child's key is still among its
    // dependencies. Re-adding the lost ones (recorded or not: a recorded one completes at once
    // from the ledger) clears them. With none lost it can never move, and the turn goes on below.
    if (lostCalls.length > 0) {
      if (view.recoveries >= view.maxRecoveries) return { kind: 'end', code: 'run_stalled' };
      return { kind: 'add_children', parentJobId: waitingParent.jobId, calls: lostCalls.map((tool) => tool.call) };
    }
  }
  const failed = view.modelJobs.find((job) => job.state === 'failed');
  if (failed && !waitingParent) return { kind: 'end', code: 'job_attempts_exhausted', failedJobId: failed.jobId };
  if (view.recoveries >= view.maxRecoveries) return { kind: 'end', code: 'run_stalled' };
  const own = view.modelJobs.find((job) => job.jobId === view.ownJobId);
  const ownLost = own === undefined || own.state === 'unknown';
  // Lost calls without a result run again (their tools check the ledger first, so nothing is done
  // twice); a call whose job finished without one is answered as missing by the turn.
  const calls = lostCalls.filter((tool) => !tool.recorded).map((tool) => tool.call);
  return ownLost
    ? { kind: 'resume', jobId: view.ownJobId, reason: 'model_job_missing', calls }
    : { kind: 'resume', jobId: view.nextRecoveryJobId, reason: 'model_job_dead', calls };
}
