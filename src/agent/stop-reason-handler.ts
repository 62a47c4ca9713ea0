// One exhaustive decision per model response, keyed on stop_reason. Pure: the model worker
// applies the decision (stores it once, enqueues what it says). Adding a stop reason to the
// union below is a compile error until it is handled here.
import type { RunCounters, NextInput } from '../engine/index.js';
import type { RunErrorCode } from '../domain/run-outcomes.js';
import type { RunEventDraft } from '../domain/run-events.js';
import {
  isText,
  isThinking,
  isToolUse,
  type AssistantBlock,
  type AssistantMessage,
  type ModelResponse,
  type ToolUseBlock,
} from '../domain/model-message.js';
import { assertNever } from '../domain/assert-never.js';
import { modelWrittenText } from '../domain/model-written-text.js';
import type { ParseMode } from '../domain/parse-modes.js';

/** Every stop_reason the SDK declares. */
export const KNOWN_STOP_REASONS = [
  'end_turn',
  'tool_use',
  'max_tokens',
  'stop_sequence',
  'pause_turn',
  'refusal',
  'model_context_window_exceeded',
] as const;
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
const EMPTY_CONTENT_PLACEHOLDER = '(no content)';

/** Assistant content as it may be sent back: no empty text blocks (the API rejects them), and a
 * placeholder where nothing but thinking is left, so user and assistant turns keep alternating.
 * thinking and redacted_thinking blocks stay verbatim and in place: the API verifies each one and
 * wants them first in the message that a tool loop continues. */
export function sanitizeAssistant(content: AssistantBlock[]): AssistantMessage {
  const kept = content.filter((block) => !(isText(block) && block.text.trim() === ''));
  const hasAnswer = kept.some((block) => !isThinking(block));
  return { role: 'assistant', content: hasAnswer ? kept : [...kept, { type: 'text', text: EMPTY_CONTENT_PLACEHOLDER }] };
}

/** After pause_turn the request ended with the paused assistant message and the answer continues
 * it: one message, the paused content first (its thinking blocks verbatim at the start), then the
 * continuation. A placeholder the paused message needed on its own is dropped. */
export function mergeContinuation(paused: AssistantMessage, continuation: AssistantMessage): AssistantMessage {
  const isPlaceholder = (block: AssistantBlock) => isText(block) && block.text === EMPTY_CONTENT_PLACEHOLDER;
  return sanitizeAssistant([...paused.content.filter((block) => !isPlaceholder(block)), ...continuation.content.filter((block) => !isPlaceholder(block))]);
}

/** The response's thinking blocks, verbatim and in order: what a rewrite of the message keeps
 * ahead of the content it substitutes. */
export function thinkingBlocksOf(content: AssistantBlock[]): AssistantBlock[] {
  return content.filter(isThinking);
}

/** A thinking block cut off by the output limit has no signature yet and cannot be sent back. */
function isUnsignedThinking(block: AssistantBlock): boolean {
  return block.type === 'thinking' && (typeof block.signature !== 'string' || block.signature === '');
}

function nativeCalls(blocks: ToolUseBlock[]): PlannedCall[] {
  return blocks.map((block) => ({ toolUseId: block.id, name: block.name, input: block.input, parseMode: 'native' }));
}

export function handleStopReason(input: StopReasonInput): StopReasonOutput {
  const { response, limits } = input;
  const counters: RunCounters = { ...input.counters };
  const events: DecisionEvent[] = [];
  const content = response.content;
  const toolUses = content.filter(isToolUse);
  const reason = response.stop_reason as KnownStopReason | null;
  if (reason !== 'pause_turn') counters.pauseTurnsInRow = 0;
  // Truncations are counted in a row: a clean answer in between means the limit was enough again.
  if (reason !== 'max_tokens' && reason !== 'model_context_window_exceeded') counters.maxTokensContinuations = 0;
  let maxTokens = input.currentMaxTokens;

  const decide = (decision: TurnDecision): StopReasonOutput => ({ decision, counters, maxTokens, events });

  /** Tool calls to run. After the finish gate passed none of them runs (the turn refuses each,
   * reject-call.ts `finish_already_verified`) and the next message asks for the summary again
   * (summary-request.ts), at most maxSummaryReprompts times; the next answer with calls ends the
   * run succeeded with the summary finish_turn carried: the site is verified, only the model's
   * closing words are missing, and asking once more would only loop. */
  const callsDecision = (decision: Extract<TurnDecision, { kind: 'tools' }>): StopReasonOutput => {
    if (!input.finishVerified) return decide(decision);
    if (counters.summaryReprompts >= limits.maxSummaryReprompts) {
      events.push({ event: 'summary-fallback-use', reprompts: counters.summaryReprompts, tools: decision.calls.map((call) => call.name) });
      return decide({ kind: 'succeed', assistant: decision.assistant, result: input.finishSummary ?? VERIFIED_WITHOUT_SUMMARY_TEXT });
    }
    counters.summaryReprompts += 1;
    // The summary request replaces any note (run-model-turn.ts, noteForToolResults).
    return decide({ ...decision, note: null });
  };

  /** end_turn, or a stop sequence that means "finished": recover text tool calls, then apply
   * the finish gate. */
  const finishOrNudge = (): StopReasonOutput => {
    // Calls written as text are looked for in the text blocks only: a progress update precedes a
    // native tool_use, so a call it describes is made natively (model-written-text.ts).
    const { written, answer: text } = modelWrittenText({ content, progressUpdates: input.progressUpdates });
    if (input.recover && text !== '') {
      // Detection always runs, so JSON-in-text and fence-only stops are counted even where
      // recovery is off; acting on them is what recoveryEnabled switches.
      const recovery = input.recover(text, !input.finishVerified);
      const call = recovery.calls[0];
      const detected = call !== undefined || recovery.fence_only_stop || recovery.json_in_text || recovery.candidate_count > 0;
      if (detected && !input.finishVerified) {
        events.push({
          event: recovery.fence_only_stop ? 'fence-only-stop' : 'text-call-detect',
          parse_mode: recovery.parse_mode,
          candidate_count: recovery.candidate_count,
          fallback_used: recovery.fallback_used,
          schema_validation: recovery.schema_validation,
          reason: recovery.reason,
          recovery: input.recoveryEnabled,
        });
      }
      // A message that carries thinking is never rewritten: the API verifies a thinking turn as it
      // was returned ("pass thinking blocks back … unmodified", build-with-claude/extended-thinking,
      // "Preserving thinking blocks"), and a tool_use it never produced behind its thinking is a
      // rebuilt message. Such a message goes back as it came, and the model is asked to re-emit.
      // After the finish gate nothing runs any more, so a call in the summary is not recovered.
      const thinkingKeptVerbatim = thinkingBlocksOf(content).length > 0;
      if (input.recoveryEnabled && call && !input.finishVerified && !thinkingKeptVerbatim && recovery.parse_mode !== 'none' && recovery.parse_mode !== 'native') {
        const toolUseId = input.newSyntheticId();
        events.push({ event: 'tool-call-recover', tool: call.name, parse_mode: recovery.parse_mode, tool_use_id: toolUseId, original_text: text });
        // The text is replaced by the call it described.
        const assistant: AssistantMessage = {
          role: 'assistant',
          content: [{ type: 'tool_use', id: toolUseId, name: call.name, input: call.arguments }],
        };
        return decide({
          kind: 'tools',
          assistant,
          calls: [{ toolUseId, name: call.name, input: call.arguments, parseMode: recovery.parse_mode }],
          note: null,
        });
      }
      const reemit = recovery.fence_only_stop || recovery.json_in_text || recovery.candidate_count > 0 || call !== undefined;
      if (input.recoveryEnabled && call && !input.finishVerified && thinkingKeptVerbatim) {
        events.push({ event: 'tool-call-reemit', tool: call.name, parse_mode: recovery.parse_mode, reason: 'thinking_message_kept_verbatim' });
      }
      if (input.recoveryEnabled && reemit && !input.finishVerified && counters.reemitRequests < limits.maxReemitRequests) {
        counters.reemitRequests += 1;
        return decide({
          kind: 'continue',
          assistant: sanitizeAssistant(content),
          input: {
            kind: 'text',
            text:
              `Your last message described a tool call in text instead of calling the tool (${call ? `a call to ${call.name}` : (recovery.reason ?? 'no valid call')}). ` +
              'Nothing was executed. Call exactly one tool with the native tool-use mechanism.',
          },
        });
      }
    }
    if (input.finishVerified) {
      return decide({ kind: 'succeed', assistant: sanitizeAssistant(content), result: written === '' ? EMPTY_ANSWER_TEXT : written });
    }
    events.push({ event: 'finish-suspect', missing: input.finishGateMissing, nudges: counters.endTurnNudges });
    if (counters.endTurnNudges >= limits.maxEndTurnNudges) {
      return decide({
        kind: 'end',
        status: 'failed',
        assistant: sanitizeAssistant(content),
        error: {
          code: 'unverified_finish',
          message: `The model stopped ${counters.endTurnNudges + 1} times before the site was verified. Missing: ${input.finishGateMissing.join('; ') || 'finish_turn was not called'}`,
        },
      });
    }
    counters.endTurnNudges += 1;
    const missing = input.finishGateMissing.length > 0 ? input.finishGateMissing : ['call finish_turn once everything is done'];
    return decide({
      kind: 'continue',
      assistant: sanitizeAssistant(content),
      input: { kind: 'text', text: `The build is not finished yet. Still missing:\n- ${missing.join('\n- ')}\nContinue with the tools.` },
    });
  };

  switch (reason) {
    case 'end_turn':
      return finishOrNudge();

    case 'tool_use':
      if (toolUses.length === 0) {
        return decide({
          kind: 'end',
          status: 'failed',
          assistant: null,
          error: { code: 'tool_use_without_calls', message: 'stop_reason was tool_use but the response held no tool_use block' },
        });
      }
      return callsDecision({ kind: 'tools', assistant: sanitizeAssistant(content), calls: nativeCalls(toolUses), note: null });

    case 'max_tokens':
    case 'model_context_window_exceeded': {
      const last = content.at(-1);
      const cutInsideToolUse = last !== undefined && isToolUse(last);
      const complete = cutInsideToolUse ? toolUses.slice(0, -1) : toolUses;
      const kept = cutInsideToolUse || (last !== undefined && isUnsignedThinking(last)) ? content.slice(0, -1) : content;
      if (cutInsideToolUse) {
        events.push({ event: 'tool-call-truncate', tool: last.name, tool_use_id: last.id });
      }
      if (reason === 'model_context_window_exceeded' && complete.length === 0) {
        return decide({
          kind: 'end',
          status: 'failed',
          assistant: null,
          error: {
            code: 'context_window_exceeded',
            message: 'The conversation no longer fits the model context window; continuing cannot help.',
          },
        });
      }
      if (counters.maxTokensContinuations >= limits.maxTokensContinuations) {
        return decide({
          kind: 'end',
          status: 'failed',
          assistant: null,
          error: {
            code: reason === 'max_tokens' ? 'max_tokens_exhausted' : 'context_window_exceeded',
            message: `The model's output was cut off ${counters.maxTokensContinuations + 1} times in a row.`,
          },
        });
      }
      counters.maxTokensContinuations += 1;
      const reissue = cutInsideToolUse
        ? `Your call to ${last.name} was cut off by the output limit and was NOT executed. Reissue it, smaller if needed.`
        : null;
      // A larger limit helps a long answer, not a full context window.
      if (reason === 'max_tokens') {
        const raised = Math.min(input.currentMaxTokens * 2, input.maxTokensCeiling);
        if (raised > maxTokens) {
          events.push({ event: 'max-tokens-raise', from: maxTokens, to: raised });
          maxTokens = raised;
        }
      }
      if (complete.length > 0) {
        return callsDecision({
          kind: 'tools',
          assistant: sanitizeAssistant(kept),
          calls: nativeCalls(complete),
          note: reissue ?? 'Your message was cut off by the output limit after these tool calls; continue from where you left off.',
        });
      }
      return decide({
        kind: 'continue',
        assistant: sanitizeAssistant(kept),
        input: { kind: 'text', text: reissue ?? 'Your previous answer was cut off by the output limit. Continue from where you left off.' },
      });
    }

    case 'stop_sequence': {
      const sequence = response.stop_sequence ?? '';
      const action = input.stopSequences[sequence] ?? 'finish';
      events.push({ event: 'stop-sequence-match', sequence, action });
      switch (action) {
        case 'finish':
          return finishOrNudge();
        case 'reprompt':
          if (counters.driftReprompts >= limits.maxDriftReprompts) {
            return decide({
              kind: 'end',
              status: 'failed',
              assistant: null,
              error: { code: 'role_play_drift', message: `The model kept writing the user's turn (stop sequence ${JSON.stringify(sequence)}).` },
            });
          }
          counters.driftReprompts += 1;
          // The drifted output is discarded; a placeholder keeps the turns alternating, after the
          // thinking, which must go back unaltered.
          return decide({
            kind: 'continue',
            assistant: {
              role: 'assistant',
              content: [...thinkingBlocksOf(content), { type: 'text', text: '(response discarded: it drifted into writing the user turn)' }],
            },
            input: { kind: 'text', text: 'Continue as the assistant only. Do not write lines for the user; use the tools.' },
          });
        default:
          return assertNever(action);
      }
    }

    case 'pause_turn':
      if (counters.pauseTurnsInRow >= limits.maxPauseTurnsInRow) {
        return decide({
          kind: 'end',
          status: 'failed',
          assistant: null,
          error: { code: 'pause_turn_limit', message: `The model paused ${counters.pauseTurnsInRow + 1} turns in a row.` },
        });
      }
      counters.pauseTurnsInRow += 1;
      // The documented continuation sends the paused answer back as the last message
      // (build-with-claude/handling-stop-reasons); a model that refuses a conversation ending with
      // an assistant message (400 "This model does not support assistant message prefill",
      // models/sonnet-5-5/migration-guide) gets a user message asking it to go on instead.
      return decide({
        kind: 'continue',
        assistant: sanitizeAssistant(content),
        input: input.assistantPrefill ? { kind: 'none' } : { kind: 'text', text: PAUSE_TURN_CONTINUE_TEXT },
      });

    case 'refusal': {
      const text = modelWrittenText({ content, progressUpdates: input.progressUpdates }).written;
      return decide({
        kind: 'end',
        status: 'refused',
        assistant: null,
        error: { code: 'refused', message: text === '' ? 'The model refused to continue this request.' : text },
      });
    }

    case null:
      return unexpected('null');

    default: {
      // A stop reason this code does not know yet: fail the run, never crash the worker.
      const raw: string = reason;
      if ((KNOWN_STOP_REASONS as readonly string[]).includes(raw)) return assertNever(reason);
      return unexpected(raw);
    }
  }

  function unexpected(raw: string): StopReasonOutput {
    events.push({ event: 'stop-reason-reject', level: 'warn', raw_stop_reason: raw });
    return decide({
      kind: 'end',
      status: 'failed',
      assistant: null,
      error: { code: 'unexpected_stop', message: `The model stopped with an unknown stop_reason: ${raw}` },
    });
  }
}
