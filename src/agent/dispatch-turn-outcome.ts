// The last step of a model turn (run-model-turn.ts): hand a committed outcome to the queue — its
// tool calls as a fan-out whose parent is the next turn, or the next turn alone. A replay (an
// outcome an earlier attempt committed) may find its jobs there already.
import { findAgent } from '../agents/index.js';
import { claimDurabilityOf, type TurnOutcome, type RunRecord } from '../engine/index.js';
import { toolJobOf, type ModelJobData } from '../jobs/job-catalog.js';
import { activeTraceCarrier } from '../telemetry/tracing.js';
import type { ModelTurnDependencies } from './turn-context.js';

/** Enqueues what a committed outcome says comes next; nothing when it ended the run. */
export async function dispatchTurnOutcome({
  deps,
  run,
  turn,
  outcome,
  trace,
  replay,
}: {
  deps: Pick<ModelTurnDependencies, 'store' | 'queues' | 'config'>;
  run: RunRecord;
  turn: number;
  outcome: TurnOutcome;
  trace: Record<string, string>;
  replay: boolean;
}): Promise<void> {
  if (!outcome.nextInput) return;
  const next: ModelJobData = { runId: run.id, turn: turn + 1, trace };
  // Tool calls are children of the turn that made them; the next turn hangs off the run root.
  const turnContext = activeTraceCarrier();
  const toolTrace = Object.keys(turnContext).length > 0 ? turnContext : trace;
  const agent = findAgent(run.agent);
  // Each call carries the fingerprint of the tool as this worker offered it: a tool worker with
  // another definition of it leaves the job rather than run it by other rules (check-tool-call.ts).
  const toolJobs = outcome.dispatch
    .filter((call) => call.name !== 'ask_user')
    .map((call) => toolJobOf(call, toolTrace, agent?.tools.get(call.name)?.fingerprint));
  // A call with an effect goes out only once the answer that made it is on a replica, when
  // configured (docs/scaling.md#failover): its job runs on the queue's primary, and were the
  // answer lost with the run's, the resumed turn would make the call again under a new id.
  // A run's agent not loaded here (load-turn-for-job.ts leaves such jobs) counts every call as a write.
  if (toolJobs.some((call) => agent?.isWrite(call.name) ?? true)) await deps.store.confirmTurnDurable(run.id, turn, claimDurabilityOf(deps.config));
  // The run's own shard, for life (docs/scaling.md#queue-shards).
  const queues = deps.queues.of(run.queueShard);
  if (toolJobs.length > 0) await queues.enqueueToolFanOut(next, toolJobs, { mayExist: replay });
  else await queues.enqueueTurn(next);
}
