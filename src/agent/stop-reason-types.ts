// The vocabulary of the stop-reason handler (stop-reason-handler.ts): the stop reasons, the turn's
// limits, its input and its decision, and the texts the decisions send. Its steps
// (decide-*.ts) and the model turn share these.
import type { RunEventDraft } from '../domain/run-events.js';
import { type RunCounters, type NextInput } from '../engine/index.js';
import type { RunErrorCode } from '../domain/run-outcomes.js';
import type { AssistantMessage, ModelResponse } from '../domain/model-message.js';
import type { ParseMode } from '../domain/parse-modes.js';

/** Every stop_reason the SDK declares. */
export const KNOWN_STOP_REASONS = ['end_turn', 'tool_use', 'max_tokens', 'stop_sequence', 'pause_turn', 'refusal', 'model_context_window_exceeded'] as const;
export type KnownStopReason = (typeof KNOWN_STOP_REASONS)[number];

/** What the text tool-call parser reports (see src/parsing). */
export interface TextRecovery {
  calls: Array<{ name: string; arguments: Record<string, unknown> }>;
  parse_mode: ParseMode;
  candidate_count: number;
  fallback_used: boolean;
  schema_validation: 'pass' | 'fail' | 'not_run';
  reason: string | null;
  fence_only_stop: boolean;
  json_in_text: boolean;
}

export type StopSequenceAction = 'finish' | 'reprompt';
export const DEFAULT_STOP_SEQUENCES: Readonly<Record<string, StopSequenceAction>> = {
  '\n---END---': 'finish',
  '\nUser:': 'reprompt',
};

export interface TurnLimits {
  maxEndTurnNudges: number;
  maxPauseTurnsInRow: number;
  maxTokensContinuations: number;
  maxDriftReprompts: number;
  maxReemitRequests: number;
  /** Answers with tool calls after the finish gate passed that are refused and answered with the
   * summary request again; the next one ends the run (see callsDecision below). */
  maxSummaryReprompts: number;
}

export const DEFAULT_TURN_LIMITS: TurnLimits = {
  maxEndTurnNudges: 3,
  maxPauseTurnsInRow: 3,
  maxTokensContinuations: 3,
  maxDriftReprompts: 2,
  maxReemitRequests: 3,
  maxSummaryReprompts: 2,
};

export interface PlannedCall {
  toolUseId: string;
  name: string;
  input: unknown;
  parseMode: Exclude<ParseMode, 'none'>;
}

/** What the next turn sends as its user message. */
/** What the next turn sends the model (stored with the turn's outcome: src/engine/turn-outcome.ts). */
export type { NextInput };

export type DecisionEvent = RunEventDraft;

export type TurnDecision =
  | { kind: 'tools'; assistant: AssistantMessage; calls: PlannedCall[]; note: string | null }
  | { kind: 'continue'; assistant: AssistantMessage | null; input: NextInput }
  | { kind: 'succeed'; assistant: AssistantMessage; result: string }
  | { kind: 'end'; status: 'failed' | 'refused'; assistant: AssistantMessage | null; error: { code: RunErrorCode; message: string } };

export interface StopReasonInput {
  response: ModelResponse;
  finishVerified: boolean;
  finishGateMissing: string[];
  /** The summary the finish_turn that passed the gate carried (summary-request.ts), when
   * finishVerified: the result of a run whose model never writes its own. */
  finishSummary: string | null;
  counters: RunCounters;
  /** The run's max_tokens, as this call sent it. */
  currentMaxTokens: number;
  /** How far a truncation may raise it (the model's maximum output unless configured lower). */
  maxTokensCeiling: number;
  limits: TurnLimits;
  stopSequences: Readonly<Record<string, StopSequenceAction>>;
  /** The run's non-empty thinking blocks are progress updates (model-written-text.ts): the result
   * and a refusal's message include them. */
  progressUpdates: boolean;
  /** The model takes a request that ends with an assistant message (model-catalog.ts
   * `assistantPrefill`); false: a paused turn goes on after a user message instead. */
  assistantPrefill: boolean;
  /** Parses text for a tool call written as text (detection and recovery). */
  recover: ((text: string, toolIntent: boolean) => TextRecovery) | null;
  /** Act on what recover finds: run a valid call, ask for a re-emit otherwise. */
  recoveryEnabled: boolean;
  newSyntheticId: () => string;
}

export interface StopReasonOutput {
  decision: TurnDecision;
  counters: RunCounters;
  /** The run's max_tokens from now on: raised after a max_tokens truncation and kept raised for
   * the rest of the run (a file that did not fit once will not fit next time either). */
  maxTokens: number;
  events: DecisionEvent[];
}

/** After pause_turn, on a model that refuses an assistant prefill: the user message that lets it go on. */
export const PAUSE_TURN_CONTINUE_TEXT = 'Your previous answer was paused. Continue from where you left off.';

export const EMPTY_ANSWER_TEXT = 'The model ended its turn without writing any text.';
/** The result of a verified run whose model kept calling tools and whose finish_turn summary
 * cannot be found. */
export const VERIFIED_WITHOUT_SUMMARY_TEXT = 'The site was built, verified and published; the model did not write a final summary.';
