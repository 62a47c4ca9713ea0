// The shapes a model turn's steps share (run-model-turn.ts and the step files it calls): the
// worker's dependencies, what the job ends as, and the turn's context, passed to each step as one
// object instead of being captured by closures.
import type { Logger } from 'pino';
import type { Phase } from '../domain/profile.js';
import type { RunEventDraft, RunEventFields, RunEventLevel, RunEventName, RunEventOf } from '../domain/run-events.js';
import type { ToolChoice } from '../domain/tool-choice.js';
import type { ModelCapabilities } from '../domain/model-capabilities.js';
import type { UsageByClass } from '../domain/usage.js';
import type { ModelResponse, TranscriptMessage } from '../domain/model-message.js';
import type { Config } from '../config.js';
import type { ModelProvider } from '../providers/model-provider.js';
import type { ProviderRegistry } from '../providers/provider-registry.js';
import type { TokenCalibration } from '../model/token-calibration.js';
import type { ModelDescriptions } from '../model/model-descriptions.js';
import type { ModelCallPause } from '../model/model-call-pause.js';
import type { AdmissionObservation, ModelRateLimiter } from '../model/model-rate-limiter.js';
import type { SpendLimitFlagStore } from '../model/spend-limit-flag.js';
import type { RetryOutcome } from '../model/classify-model-error.js';
import type { QueueShards } from '../jobs/queue-shards.js';
import type { ModelJobData } from '../jobs/job-catalog.js';
import { type RunEngine, type TurnView, type NextInput, type RunRecord } from '../engine/index.js';
import type { PhaseToolLayout } from './phase-tools.js';
import type { Agent } from '../agents/index.js';
import type { TextRecovery, TurnDecision } from './stop-reason-handler.js';

export interface ToolsOffered {
  /** The tools the model may call this turn: the phase's tier (what calls are held to). */
  names: readonly string[];
  /** The request's `tools`: the tier, or every tool declared once (phase-tools.ts). */
  definitions: Array<{ name: string; description: string; input_schema: unknown }>;
}

export interface ModelTurnDependencies {
  store: RunEngine;
  queues: Pick<QueueShards, 'of'>;
  /** The worker's providers (src/providers/provider-registry.ts): each run's calls go through the
   * one its record names. */
  providers: Pick<ProviderRegistry, 'get'>;
  config: Config;
  logger: Logger;
  /** Text tool-call recovery (src/parsing), or null to turn it off fleet-wide. */
  recover: ((text: string, allowedTools: readonly string[], toolIntent: boolean) => TextRecovery) | null;
  /** The tools the model sees in a phase: the phase's tier unless an experiment injects its own
   * layout (the tiers experiment's flat layout, src/cli/experiment-tiers.ts). */
  toolsFor?: (phase: Phase, run: RunRecord) => ToolsOffered;
  hooks?: ModelTurnHooks;
  /** The model pause (src/model/model-call-pause.ts), per provider identity and rate-limit class:
   * checked right before every call, set first thing on a 429 or a 529, so no worker calls that
   * class through that provider during it. */
  modelPause?: Pick<ModelCallPause, 'check' | 'pause' | 'overloaded' | 'succeeded'>;
  /** The shared limiter (src/model/model-rate-limiter.ts, docs/admission.md), when admission is
   * on: a call's requests and tokens are reserved before the pause check and settled after it. */
  admission?: Pick<ModelRateLimiter, 'reserve' | 'settleAnswer' | 'settleFailure' | 'release'>;
  /** The spend-limit flag (src/model/spend-limit-flag.ts): raised on a spend-limit answer so the
   * API stops admitting new runs. Runs already admitted still try their call: the limit may have
   * been raised in the meantime, and a refused call costs no tokens. */
  spendLimit?: Pick<SpendLimitFlagStore, 'set'>;
  /** What the provider's Models API last said of each model (src/model/model-descriptions.ts): a
   * model the catalog does not know runs on its context window. */
  modelDescriptions?: Pick<ModelDescriptions, 'describe'>;
  /** The worker's measured token ratios (src/model/token-calibration.ts): the prompt estimate of a
   * provider that counts tokens is calibrated with it now and then; absent, the documented ratios. */
  tokenCalibration?: Pick<TokenCalibration, 'ratio'>;
}

/** Observers for metrics and traces; each is optional. (Run ends: RunEngine.observeRunEnds.) */
export interface ModelTurnHooks {
  /** `costMicroUsd` comes with `response`, or with `paidUsage` for a call that failed after its
   * stream started (it was paid for all the same: model-client.ts paidUsageOfFailedCall). */
  onModelCall?(details: {
    run: RunRecord;
    toolCount: number;
    durationMs: number;
    response?: ModelResponse;
    paidUsage?: UsageByClass;
    costMicroUsd?: number;
    /** How the call failed: its retry class, or `run_ended` for a call the fleet stopped because its
     * run ended while it streamed. */
    outcome?: RetryOutcome | { kind: 'run_ended' };
  }): void;
  /** `toolChoice` is what the call sent: a forced turn could only end in a call. */
  onDecision?(details: {
    run: RunRecord;
    response: ModelResponse;
    decision: TurnDecision;
    toolCount: number;
    expectedTool: boolean;
    toolChoice: ToolChoice;
    events: readonly RunEventDraft[];
  }): void;
  /** Each reserve and settle of the admission limiter (the model worker hands it to the limiter). */
  onAdmission?(observation: AdmissionObservation): void;
}

/** How the job should end, for the worker to map onto BullMQ. */
export type ModelTurnResult = { kind: 'done'; detail: string } | { kind: 'retry'; delayMs: number; spendsAttempt: boolean; error: Error };

/** The attempt read state that moved under it (an answer arrived, another attempt committed the
 * input): the turn is loaded again, a bounded number of times (run-model-turn.ts). */
export interface TurnReload {
  kind: 'reload';
}

export interface ModelJobContext {
  jobId: string;
  attemptsMade: number;
  maxAttempts: number;
}

export const done = (detail: string): ModelTurnResult => ({ kind: 'done', detail });

/** A turn as loaded for this attempt, before its input is committed (load-turn-for-job.ts). */
export interface LoadedTurn {
  deps: ModelTurnDependencies;
  data: ModelJobData;
  job: ModelJobContext;
  runId: string;
  turn: number;
  /** The turn's duration, as GET /v1/runs/:id/turns shows it: from this attempt's load to its commit. */
  turnLoadedAt: number;
  view: TurnView;
  run: RunRecord;
  provider: ModelProvider;
  /** The catalog's (or, for a model only the provider's Models API describes, that API's) facts. */
  capabilities: ModelCapabilities;
  /** How the model sees the phase's tools (phase-tools.ts): fixed by the run's first request. */
  layout: PhaseToolLayout;
  safeModeNote: string | null;
  /** The run's agent (src/agents): its phases, tools, prompt and finish gate. */
  agent: Agent;
  /** The phase this turn runs in: a pending phase change takes effect with its input. */
  phase: Phase;
  /** Whether tool_choice may force a call follows the model's capabilities and the run's thinking. */
  mayForce: boolean;
  /** What the previous turn's outcome said this turn sends, or null on the first turn. */
  nextInput: NextInput | null;
  /** One of the turn's events, and the same appended on its own. */
  event<Name extends RunEventName>(name: Name, fields: RunEventFields[Name] & { level?: RunEventLevel }): RunEventOf<Name>;
  emit<Name extends RunEventName>(name: Name, fields: RunEventFields[Name] & { level?: RunEventLevel }): Promise<string>;
}

/** The turn once its input is committed and this job owns it (commit-turn-input.ts). */
export interface TurnContext extends LoadedTurn {
  /** The transcript the call sends, the turn's input included. */
  messages: TranscriptMessage[];
  /** The stored messages' lengths (estimate-prompt-tokens.ts). */
  transcriptCharacters: number;
}
