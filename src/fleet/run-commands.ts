// What a client can do to a run — submit, answer a question, cancel, resume — as functions over the
// store and queues, so the API, the CLI and the tests share one implementation.
import { AgentNotServed, DEFAULT_AGENT, findAgent } from '../agents/index.js';
import { assignQueueShard } from '../domain/queue-shards.js';
import type { FleetContext } from './fleet-context.js';
import { jobIds, QUEUE_NAMES, toolJobOf, type ModelJobData } from '../jobs/job-catalog.js';
import {
  type PlannedDispatch,
  type RunOptions,
  type RunRecord,
  type RunThinking,
  type RunWebhook,
  newRunId,
  type StoredToolResult,
  RESUMABLE_RUN_ERRORS,
} from '../engine/index.js';
import { resolveRunModelSettings } from '../domain/resolve-run-model-settings.js';
import type { RunBudget } from '../domain/run-budget.js';
import { readTenantLimits, runBudgetFor, type TenantLimits } from './tenant-account.js';
import type { EffortLevel } from '../domain/model-catalog.js';
import type { RunStatus } from '../domain/run-outcomes.js';
import { activeTraceCarrier, inSpan, SpanKind, traceIdOfCarrier } from '../telemetry/tracing.js';
import { SPAN_ATTRIBUTES, SPAN_NAMES } from '../telemetry/span-attributes.js';

export interface SubmitRunInput {
  tenant: string;
  /** The run's first user message: its agent's rendering of its input (Agent.parseInput). */
  prompt: string;
  /** The run's agent (src/agents); default the site builder. */
  agent?: string | undefined;
  /** The input the agent's schema accepted (RunRecord.input: what a rerun starts from). */
  input?: Record<string, unknown> | undefined;
  model?: string | undefined;
  /** The run's provider (docs/providers.md); default BUILDFLEET_PROVIDER. */
  provider?: string | undefined;
  maxTurns?: number | undefined;
  options?: RunOptions | undefined;
  thinking?: RunThinking | undefined;
  traceId?: string | null;
  traceContext?: Record<string, string>;
  /** Chosen by the caller (tests that script faults for the run before it starts); else minted. */
  runId?: string;
  /** The run this one reruns (POST /v1/runs/:id/rerun): kept on the record and shown in its view. */
  rerunOf?: string | null;
  /** The run's budgets, resolved by the API within the tenant's policy (limits/admit-run-budget.ts).
   * Absent (the CLI in-process, experiments, tests): resolved here from `options` and the tenant's
   * policy as a trusted caller, whose options may exceed the tenant's maximums. */
  budget?: RunBudget;
  /** Where the run's webhook deliveries go (docs/webhooks.md): the caller has checked the URL
   * (POST /v1/runs: checkWebhookUrl); every delivery checks it again. */
  webhook?: RunWebhook | null;
  /** The tenant policy's `defaultEffort`, read by the API with the rest of the policy. Absent (the
   * CLI in-process, experiments, tests): read here from the tenant's policy. */
  tenantDefaultEffort?: EffortLevel | null;
}

/** Creates the run and enqueues its first model turn. The run's root span starts here, in the
 * request that creates it; every job of the run carries its context. Throws RunModelSettingsError
 * (nothing created) for an unknown model or a thinking request the model cannot take. */
export async function submitRun(fleet: FleetContext, input: SubmitRunInput): Promise<RunRecord> {
  const runId = input.runId ?? newRunId();
  return inSpan(SPAN_NAMES.runCreate, { kind: SpanKind.SERVER, attributes: { [SPAN_ATTRIBUTES.runId]: runId } }, async () => {
    const carrier = input.traceContext ?? activeTraceCarrier();
    return createAndEnqueue(fleet, { ...input, runId, traceContext: carrier, traceId: input.traceId ?? traceIdOfCarrier(carrier) });
  });
}

async function createAndEnqueue(fleet: FleetContext, input: SubmitRunInput & { runId: string }): Promise<RunRecord> {
  const limits = input.budget === undefined || input.tenantDefaultEffort === undefined ? await readTenantLimits({ fleet, tenant: input.tenant }) : null;
  const tenantDefaultEffort = input.tenantDefaultEffort !== undefined ? input.tenantDefaultEffort : (limits?.policy.defaultEffort ?? null);
  const settings = resolveRunModelSettings({
    config: fleet.config,
    model: input.model,
    thinking: input.thinking,
    tenantDefaultEffort,
    describe: (name) => fleet.modelDescriptions.describe(name),
  });
  const budget = input.budget ?? trustedRunBudget(limits ?? (await readTenantLimits({ fleet, tenant: input.tenant })), input.options);
  const agent = findAgent(input.agent ?? DEFAULT_AGENT);
  if (!agent) throw new AgentNotServed(input.agent ?? DEFAULT_AGENT);
  const run = await fleet.store.createRun({
    tenant: input.tenant,
    prompt: input.prompt,
    agent: agent.name,
    initialPhase: agent.initialPhase,
    model: settings.model,
    provider: input.provider ?? fleet.config.BUILDFLEET_PROVIDER,
    // For life: every later job of the run goes to this shard (docs/scaling.md#queue-shards).
    queueShard: assignQueueShard(input.runId, fleet.config.BUILDFLEET_QUEUE_SHARDS),
    maxTurns: input.maxTurns ?? agent.definition.defaults?.maxTurns ?? fleet.config.BUILDFLEET_MAX_TURNS,
    maxTokens: settings.maxTokens,
    maxTokensCeiling: settings.maxTokensCeiling,
    thinking: {
      thinking: settings.thinking,
      thinkingBudgetTokens: settings.thinkingBudgetTokens,
      effort: settings.effort,
      thinkingDisplay: settings.thinkingDisplay,
    },
    deprecation: settings.deprecation,
    options: input.options ?? {},
    traceId: input.traceId ?? null,
    traceContext: input.traceContext ?? {},
    ...(input.runId ? { runId: input.runId } : {}),
    budget,
    rerunOf: input.rerunOf ?? null,
    input: input.input ?? null,
    webhook: input.webhook ?? null,
  });
  try {
    await fleet.queues.of(run.queueShard).enqueueTurn({ runId: run.id, turn: 0, trace: input.traceContext ?? {} });
  } catch (error) {
    await endUnstartedRun(fleet, run, error);
    throw error;
  }
  return run;
}

/**
 * Ends a run whose first turn could not be enqueued, before its submission fails: the caller
 * answers an error (the API frees the tenant's slot and the Idempotency-Key), so a run left
 * `queued` in the live-run index would be resumed by the reaper after its grace — a run holding
 * no slot, and a second paid run when the client retries. Ended through the engine's one end
 * (run-end event, slot, log line, metric). Should the enqueue have reached Redis after all (a
 * timeout after the write), the job finds the run ended and does nothing. A failure to end it is
 * logged, not thrown: the caller reports the enqueue failure, the cause.
 */
async function endUnstartedRun(fleet: FleetContext, run: RunRecord, cause: unknown): Promise<void> {
  const reason = cause instanceof Error ? cause.message : String(cause);
  // The cause stays in the log: it may name infrastructure the tenant reading the run need not see.
  fleet.logger.error({ run_id: run.id, err: reason }, 'first turn of a new run not enqueued; ending the run');
  const error = { code: 'enqueue_failed' as const, message: 'The run could not be started: its first turn was not enqueued. Submit it again.' };
  await fleet.store
    .endRun(run.id, 0, 'failed', { error })
    .catch((failure: unknown) =>
      fleet.logger.error(
        { run_id: run.id, err: failure instanceof Error ? failure.message : String(failure) },
        'run whose first turn was not enqueued not ended',
      ),
    );
}

/** The budgets of a run submitted in-process: its options within the tenant's policy, maximums not
 * enforced (the caller is trusted), lowered to what the tenant may still spend. */
function trustedRunBudget(limits: TenantLimits, options: RunOptions | undefined): RunBudget {
  const resolution = runBudgetFor({ limits, requested: { budgetUsd: options?.budgetUsd, tokenBudget: options?.tokenBudget }, mayExceedMaximum: true });
  if (resolution.kind !== 'budget') throw new Error('a trusted run budget was refused');
  return resolution.budget;
}

export type AnswerOutcome = 'resumed' | 'recorded' | 'no_open_question' | 'run_ended';

/** Answers the run's open ask_user question by closing its tool_use with a tool_result. */
export async function answerQuestion(fleet: FleetContext, run: RunRecord, text: string): Promise<AnswerOutcome> {
  const question = run.question;
  if (!question) return 'no_open_question';
  const result: StoredToolResult = {
    content: `<user_answer>\n${text}\n</user_answer>`,
    is_error: false,
    output: { answer: text },
  };
  const trail = { tool: 'ask_user', ok: true, phase: run.phase, turn: question.turn - 1, toolUseId: question.toolUseId };
  const outcome = await fleet.store.answerQuestion(run.id, question, result, trail);
  if (outcome === 'terminal') return 'run_ended';
  if (outcome === 'no_open_question') return 'no_open_question';
  if (outcome === 'resume') {
    await fleet.queues
      .of(run.queueShard)
      .enqueueTurn({ runId: run.id, turn: question.turn, trace: run.traceContext }, jobIds.modelResume(run.id, question.turn, question.toolUseId));
    return 'resumed';
  }
  return 'recorded';
}

/** Cancels a run that has not ended; its queued jobs find it cancelled and do nothing. The end
 * is the engine's one end: event, log line and the runs-ended metric, once. */
export async function cancelRun(fleet: FleetContext, run: RunRecord): Promise<boolean> {
  return fleet.store.endRun(run.id, run.turn, 'cancelled', { error: { code: 'cancelled', message: 'The run was cancelled.' } });
}

export type ResumeOutcome =
  | { kind: 'resumed'; run: RunRecord; jobId: string }
  | { kind: 'missing' }
  | { kind: 'not_failed'; status: RunStatus }
  | { kind: 'not_resumable'; code: string }
  | { kind: 'changed' };

/**
 * Continues a run that failed for a resumable reason (src/engine/resumable-run-errors.ts) from its
 * failed turn: the engine reopens it (one step, guarded), then the turn's new job is enqueued
 * (`<run>-turn-<n>-reopen-<k>`, a new id: the failed turn's own job id is taken). The turns before
 * are committed and never called again; the tools of the calls they made answer from the ledger.
 * Calls the turn before committed but never handed out (its job failed for good in the dispatch)
 * are handed out now, as the new job's children (undispatchedCalls).
 * Admission (the tenant's slot and limits) is the caller's: the API admits before calling this.
 * A run that changed between the engine's read and its step (another turn, another reopen) is
 * read again, twice at most.
 */
export async function resumeRun(fleet: FleetContext, runId: string): Promise<ResumeOutcome> {
  const resumableCodes = Object.keys(RESUMABLE_RUN_ERRORS);
  for (let attempt = 0; attempt < 3; attempt += 1) {
    const outcome = await fleet.store.reopenFailedRun(runId, { resumableCodes, jobIdFor: (turn, reopen) => jobIds.modelReopen(runId, turn, reopen) });
    if (outcome.kind === 'changed') continue;
    if (outcome.kind !== 'reopened') return outcome;
    // Should this enqueue fail, the run is `running` with no job: the reaper finds it after its
    // grace (the claim names this job, which it sees lost) and resumes the turn or ends the run.
    const next: ModelJobData = { runId, turn: outcome.run.turn, trace: outcome.run.traceContext };
    const queues = fleet.queues.of(outcome.run.queueShard);
    const calls = await undispatchedCalls(fleet, outcome.run, next.turn);
    if (calls.length === 0) {
      await queues.enqueueTurn(next, outcome.jobId);
    } else {
      fleet.logger.info(
        { run_id: runId, step: next.turn, job_id: outcome.jobId, tool_use_ids: calls.map((call) => call.toolUseId) },
        'resume hands out calls never dispatched',
      );
      await queues.enqueueToolFanOut(
        next,
        calls.map((call) => toolJobOf(call, next.trace)),
        { parentJobId: outcome.jobId },
      );
    }
    return { kind: 'resumed', run: outcome.run, jobId: outcome.jobId };
  }
  return { kind: 'changed' };
}

/**
 * The calls the turn before `turn` committed that were never handed out: the turn's input is not
 * committed yet (it will be built from the ledger), and a call has neither a result in the ledger
 * nor a tool job. That is a turn whose job failed for good while dispatching (the commit had moved
 * the run to `turn`, so the resume reopens `turn`): without this its calls would reach the model as
 * missing results, never run. A call that ran (its result in the ledger, its job gone or not) is
 * left to the ledger; one whose job exists, failed for good included, is left to that job (a tool
 * failure is data). The job ids are the calls' deterministic ones, so a call is never queued twice.
 */
async function undispatchedCalls(fleet: FleetContext, run: RunRecord, turn: number): Promise<PlannedDispatch[]> {
  const runId = run.id;
  const inspection = await fleet.store.inspectTurn(runId, turn);
  if (typeof inspection === 'string' || inspection.inputCommitted) return [];
  const unrecorded = inspection.calls.filter(({ call, recorded }) => !recorded && call.name !== 'ask_user').map(({ call }) => call);
  const states = await Promise.all(unrecorded.map((call) => fleet.queues.of(run.queueShard).jobState(QUEUE_NAMES.tool, jobIds.tool(runId, call.toolUseId))));
  return unrecorded.filter((_, index) => states[index] === 'unknown');
}
