// Step 0 of a model turn (run-model-turn.ts): load the turn in one round trip and settle what the
// load alone decides — a run whose state does not decode, is missing or has ended; an outcome an
// earlier attempt committed (replayed); an agent or a provider this worker does not have.
import { findAgent, AgentNotServed, type Agent } from '../agents/index.js';
import type { ModelJobData } from '../jobs/job-catalog.js';
import { type TurnView, StoredRunInvalid } from '../engine/index.js';
import { isTerminal } from '../domain/run-outcomes.js';
import type { Phase } from '../domain/profile.js';
import { runEventOf } from '../domain/run-events.js';
import type { TranscriptMessage } from '../domain/model-message.js';
import { lookupModelCapabilities } from '../domain/model-capabilities.js';
import type { ModelProvider } from '../providers/model-provider.js';
import { ProviderConfigurationError } from '../providers/provider-registry.js';
import { choosePhaseToolLayout } from './phase-tools.js';
import { mayForceToolChoice } from './tool-choice-policy.js';
import { dispatchTurnOutcome } from './dispatch-turn-outcome.js';
import { done, type LoadedTurn, type ModelJobContext, type ModelTurnDependencies, type ModelTurnResult } from './turn-context.js';

const SAFE_MODE_NOTE =
  'SAFE MODE: a tool returned invalid output, so every write tool is refused for the rest ' +
  'of this run. Do not call write tools; finish by explaining what could not be completed.';

/** How long a job of an agent this worker does not load waits before another worker may take it. */
const AGENT_NOT_SERVED_RETRY_MS = 5_000;

/** What serves the run here: its agent and its provider, or how the job ends without them. A run of
 * an agent this worker does not load (roles whose BUILDFLEET_AGENT_MODULES differ) goes back to
 * the queue for a worker that has it, and runs out of attempts only if none has
 * (docs/agents.md#deploying-agents). A provider this worker does not have (a declaration removed
 * since the run was created) can never answer it, so the run ends saying which. */
async function servingOf({
  deps,
  run,
  turn,
}: {
  deps: ModelTurnDependencies;
  run: TurnView['run'];
  turn: number;
}): Promise<{ kind: 'served'; agent: Agent; provider: ModelProvider } | { kind: 'ended'; result: ModelTurnResult }> {
  const agent = findAgent(run.agent);
  if (!agent) {
    deps.logger.warn({ run_id: run.id, step: turn, agent: run.agent }, 'run of an agent this worker does not load: left for another worker');
    return { kind: 'ended', result: { kind: 'retry', delayMs: AGENT_NOT_SERVED_RETRY_MS, spendsAttempt: true, error: new AgentNotServed(run.agent) } };
  }
  try {
    return { kind: 'served', agent, provider: deps.providers.get(run.provider) };
  } catch (error) {
    if (!(error instanceof ProviderConfigurationError)) throw error;
    await deps.store.endRun(run.id, turn, 'failed', { error: { code: 'provider_not_configured', message: error.message } });
    return { kind: 'ended', result: done('run_failed:provider_not_configured') };
  }
}

/** Loads the job's turn: the turn to go on with, or how the job ends without a call. */
export async function loadTurnForJob({
  deps,
  data,
  job,
}: {
  deps: ModelTurnDependencies;
  data: ModelJobData;
  job: ModelJobContext;
}): Promise<{ kind: 'loaded'; loaded: LoadedTurn } | { kind: 'ended'; result: ModelTurnResult }> {
  const { store } = deps;
  const { runId, turn } = data;
  const turnLoadedAt = performance.now();
  const ended = (result: ModelTurnResult) => ({ kind: 'ended' as const, result });
  let view: TurnView | null;
  try {
    view = await store.loadTurn(runId, turn);
  } catch (error) {
    // State that does not decode cannot be retried into shape: the run ends, saying why.
    if (!(error instanceof StoredRunInvalid)) throw error;
    deps.logger.error({ run_id: runId, step: turn, err: error.message }, 'stored run state invalid');
    await store.endRun(runId, turn, 'failed', { error: { code: 'stored_run_invalid', message: error.message } });
    return ended(done('run_failed:stored_run_invalid'));
  }
  if (!view) return ended(done('run_missing'));
  const run = view.run;
  if (isTerminal(run.status)) return ended(done('run_terminal'));
  if (view.turn.outcome) {
    // Committed by an earlier attempt that died before (or while) handing its calls to the queue.
    await dispatchTurnOutcome({ deps, run, turn, outcome: view.turn.outcome, trace: data.trace, replay: true });
    return ended(done('outcome_replayed'));
  }

  const served = await servingOf({ deps, run, turn });
  if (served.kind === 'ended') return ended(served.result);
  const { agent, provider } = served;
  const capabilities = lookupModelCapabilities({
    model: run.model,
    overrides: deps.config.BUILDFLEET_MODEL_CAPABILITIES,
    described: deps.modelDescriptions?.describe(run.model),
  }).capabilities;
  // An experiment's own layout (deps.toolsFor) keeps the tier per request.
  const layout = deps.toolsFor
    ? 'tier_per_request'
    : choosePhaseToolLayout({
        messages: view.messages as TranscriptMessage[],
        capabilities,
        providerKind: provider.kind,
        enabled: deps.config.BUILDFLEET_PHASE_TOOL_CHANGES,
      });
  const previous = view.previousOutcome;
  const phase: Phase = run.pendingPhase ?? run.phase;
  const event: LoadedTurn['event'] = (name, fields) => runEventOf(runId, turn, name, fields);
  const loaded: LoadedTurn = {
    deps,
    data,
    job,
    runId,
    turn,
    turnLoadedAt,
    view,
    run,
    provider,
    capabilities,
    layout,
    safeModeNote: run.safeMode === 'skip_writes' ? SAFE_MODE_NOTE : null,
    agent,
    phase,
    mayForce: mayForceToolChoice({ capabilities, thinking: run.thinking }),
    nextInput: previous ? previous.nextInput : null,
    event,
    emit: (name, fields) => store.appendEvent(event(name, fields)),
  };
  return { kind: 'loaded', loaded };
}
