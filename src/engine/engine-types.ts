// The engine's types: what its callers pass and get back (events, tool results, a turn's view, a
// run's end, the archive's source…), shared by RunEngine and its systems (systems/).
import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import type { Phase } from '../domain/profile.js';
import type { RunErrorCode, RunStatus, TerminalStatus } from '../domain/run-outcomes.js';
import type { PlannedDispatch, TurnOutcome } from './turn-outcome.js';
import type { RunOptions, RunRecord, RunWebhook } from './run-types.js';
import type { RunBudget } from '../domain/run-budget.js';
import type { ModelDeprecation, RunThinkingSettings } from '../domain/resolve-run-model-settings.js';
import type { ToolErrorCode } from '../domain/tool-error-codes.js';
import type { RunEvent } from '../domain/run-events.js';

export type { RunEvent, RunEventDraft, RunEventName } from '../domain/run-events.js';

/** An event as read back from the stream: its stream id and the time the engine stamped. */
export type StoredEvent = RunEvent & { id: string; at: string };

export interface TrailEntry {
  tool: string;
  ok: boolean;
  phase: Phase;
  turn: number;
  toolUseId: string;
  detail?: string;
}

/** A tool_use's answer as kept in the ledger: the tool_result content sent to the model. */
export interface StoredToolResult {
  content: string;
  is_error: boolean;
  /** The tool's output before wrapping, for the API and the finish gate; absent on errors. */
  output?: unknown;
  error_code?: ToolErrorCode;
  error_reason?: string;
}

export interface CreateRunInput {
  tenant: string;
  /** The first user message: the agent's rendering of the run's input. */
  prompt: string;
  /** The run's agent (src/agents) and the phase it starts in. Default: the site builder, planning. */
  agent?: string;
  initialPhase?: string;
  model: string;
  /** The run's provider (docs/providers.md). Default: `anthropic`. */
  provider?: string;
  /** The run's queue shard (src/domain/queue-shards.ts). Default: 0. */
  queueShard?: number;
  maxTurns: number;
  maxTokens: number;
  /** Default: maxTokens (never raised). */
  maxTokensCeiling?: number;
  /** How the run thinks (domain/resolve-run-model-settings.ts). Default: off, no effort. */
  thinking?: RunThinkingSettings;
  /** The run's model is deprecated (resolve-run-model-settings.ts): the run is created with a
   * `model-deprecation-warn` warning event (its log line and the deprecated-model metric follow it). */
  deprecation?: ModelDeprecation | null;
  options: RunOptions;
  traceId?: string | null;
  traceContext?: Record<string, string>;
  runId?: string;
  /** The run's budgets (src/domain/run-budget.ts), chosen by the caller within its tenant's
   * policy. Default: none (no USD or token budget), for runs made by tests and experiments. */
  budget?: RunBudget;
  /** The run this one reruns (POST /v1/runs/:id/rerun). Default: null. */
  rerunOf?: string | null;
  /** The agent's input as its schema accepted it (RunRecord.input). Default: null. */
  input?: Record<string, unknown> | null;
  /** Where the run's webhook deliveries go (docs/webhooks.md), already checked. Default: null. */
  webhook?: RunWebhook | null;
}

/** How a run ended, for observers (the runs-ended metric) — reported exactly once per run. */
export interface RunEnd {
  runId: string;
  tenant: string;
  /** The run's agent (a run from before agents: the site builder). */
  agent: string;
  turn: number;
  status: TerminalStatus;
  errorCode: RunErrorCode | null;
  /** The run names a webhook, so its end owes a `run.ended` delivery (recorded by the ending script:
   * readOwedWebhook). */
  webhookOwed: boolean;
}

/** An end's owed webhook delivery as the ending script recorded it on the run's hash. */
export interface OwedWebhook {
  /** The stored value, as given back to settleOwedWebhook. */
  raw: string;
  status: TerminalStatus;
  /** The end's transition time (ISO): it names the delivery. */
  endedAt: string;
}

/** A model turn as stored when its job starts (bfLoadTurn), decoded. */
export interface TurnView {
  run: RunRecord;
  /** The turn's own hash: committed input, owner, and (once committed) its outcome. */
  turn: { inputCommitted: boolean; claimedBy: string | null; outcome: TurnOutcome | null; overloadSince: number | null };
  previousOutcome: TurnOutcome | null;
  /** Ledger entries of the tool calls the previous outcome waits for (null: none recorded). */
  results: Map<string, StoredToolResult | null>;
  /** The transcript as committed so far (a copy: the caller may extend it). */
  messages: unknown[];
  /** Characters of the transcript's stored JSON (for the prompt-size estimate). */
  transcriptCharacters: number;
  trail: TrailEntry[];
}

/** What readRunForArchive returns: a run that ended, as the engine holds it. */
export interface RunArchiveSource {
  run: RunRecord;
  /** The turns that committed an answer or an outcome, in order. `response` is the answer's summary
   * as run-model-turn.ts stores it (id, stop_reason, usage, cost_micro_usd…), not yet validated. */
  turns: Array<{ turn: number; response: unknown; outcome: TurnOutcome | null }>;
  /** The tool ledger: tool_use id → its tool_result. */
  results: Map<string, StoredToolResult>;
  trail: TrailEntry[];
  /** The whole event stream, in order. */
  events: StoredEvent[];
  messages: unknown[];
  /** The workspace listing as GET /v1/runs/:id shows it (listFiles): path and size of each file. */
  files: Array<{ path: string; bytes: number }>;
}

/** How far a run that has not ended got, as the reaper reads it for many runs at once. */
export interface RunProgress {
  status: RunStatus;
  turn: number;
  /** The run's last transition (ISO; '' on a record that never had one). */
  updatedAt: string;
  /** The run's queue shard. */
  queueShard: number;
}

/** A run at a turn, as the reaper judges it (bfInspectTurn): what the turn and its jobs should be. */
export interface TurnInspection {
  status: RunStatus;
  turn: number;
  updatedAt: string;
  inputCommitted: boolean;
  /** The job that claimed the turn (committed its input), if one did. */
  claimedBy: string | null;
  /** How many times the reaper handed this turn to a new job. */
  recoveries: number;
  /** The calls the previous turn handed out (ask_user included), each with whether its result is
   * in the ledger: the turn's job waits for the tool jobs of those that are not. */
  calls: Array<{ call: PlannedDispatch; recorded: boolean }>;
  /** The run's root span context, for the jobs a recovery enqueues ({} when none was stored). */
  traceContext: Record<string, string>;
}

export function newRunId(): string {
  return `run_${randomUUID().replaceAll('-', '')}`;
}

/** A run parked for its open question (parkForInput), for observers (webhooks): reported once per
 * question, by the process that parked it. */
export interface RunPark {
  runId: string;
  turn: number;
  toolUseId: string;
  question: string;
}

/** Called after every event is stored: the logger and the active span take their copy here. */
export type RunEventObserver = (event: RunEvent) => void;
export type RunEndObserver = (end: RunEnd) => void;
export type RunParkObserver = (park: RunPark) => void;

export interface RunEngineOptions {
  logger?: Logger;
  /** Bytes of parsed transcripts this process keeps between turns (default 64 MiB). */
  transcriptCacheBytes?: number;
}
