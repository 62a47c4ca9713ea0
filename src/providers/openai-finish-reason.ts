// An OpenAI chat completion's finish_reason as the fleet's stop_reason, exhaustively. The values
// are the API's (api-reference/chat/object, `finish_reason`: "stop if the model hit a natural stop
// point or a provided stop sequence, length if the maximum number of tokens specified in the
// request was reached, content_filter if content was omitted due to a flag from our content
// filters, tool_calls if the model called a tool, or function_call (deprecated) if the model called
// a function"). The answer then goes through the same stop-reason handler as Claude's
// (src/agent/stop-reason-handler.ts).

/** Every finish_reason the API declares (SDK ChatCompletionChunk.Choice['finish_reason']). */
export const OPENAI_FINISH_REASONS = ['stop', 'length', 'tool_calls', 'content_filter', 'function_call'] as const;
export type OpenAiFinishReason = (typeof OPENAI_FINISH_REASONS)[number];

/** The stop_reason of an answer whose server sent a finish_reason outside the API's list: the
 * handler ends the run `unexpected_stop`, naming it, rather than guess what it meant. */
export const UNKNOWN_FINISH_REASON_PREFIX = 'openai_finish_reason:';

/**
 * Finish reasons outside the API's list that say the server gave up on the request, not that the
 * model finished: vLLM's `abort` (vllm/v1/engine/__init__.py FinishReason: stop, length, abort;
 * sent when the engine shuts down, sleeps or scales down mid-request, vllm-project/vllm#57082) and
 * SGLang's (its `FINISH_ABORT`). The answer is incomplete, like a stream that ended without a
 * finish_reason, so the provider throws ModelStreamIncompleteError: retried as `transient`, what
 * was generated charged.
 */
const ABORTED_FINISH_REASONS: ReadonlySet<string> = new Set(['abort']);

/** Whether a finish_reason says the server abandoned the answer (ABORTED_FINISH_REASONS). */
export function isAbortedFinish(finishReason: string | null): boolean {
  return finishReason !== null && ABORTED_FINISH_REASONS.has(finishReason);
}

export interface MappedStop {
  stop_reason: string;
  stop_sequence: string | null;
}

/**
 * The stop_reason of a finish_reason. `stop` is `stop_sequence` only when the server says which
 * stop string matched: vLLM reports it as `stop_reason` beside finish_reason ("The stop string or
 * token id that caused the completion to stop, None if the completion finished for some other
 * reason including encountering the EOS token", vllm/entrypoints/openai/protocol.py); OpenAI,
 * llama.cpp and Ollama do not, so there a stop sequence reads as end_turn (the fleet's `finish`
 * sequence means that anyway; a `reprompt` one goes unnoticed: docs/providers.md).
 */
export function mapFinishReason({
  finishReason,
  matchedStop,
  stopSequences,
  hasToolCalls,
}: {
  finishReason: string;
  /** Whether the answer carries tool calls: some servers finish a call with `stop` (vLLM with a
   * named tool_choice, older Ollama), and calls read as end_turn would be dropped unanswered; and
   * some say `tool_calls` with none (vLLM when its tool parser found no call in what the model
   * wrote, vllm-project/vllm#53255, #50889), which read as tool_use would end the run
   * `tool_use_without_calls` although the text may hold a call that text recovery can read. */
  hasToolCalls: boolean;
  /** vLLM's `stop_reason`: the matched stop string, a stop token id (a number), or null. */
  matchedStop: unknown;
  stopSequences: readonly string[];
}): MappedStop {
  if (!(OPENAI_FINISH_REASONS as readonly string[]).includes(finishReason)) {
    return { stop_reason: `${UNKNOWN_FINISH_REASON_PREFIX}${finishReason}`, stop_sequence: null };
  }
  const reason = finishReason as OpenAiFinishReason;
  switch (reason) {
    case 'stop':
      if (hasToolCalls) return { stop_reason: 'tool_use', stop_sequence: null };
      return typeof matchedStop === 'string' && stopSequences.includes(matchedStop)
        ? { stop_reason: 'stop_sequence', stop_sequence: matchedStop }
        : { stop_reason: 'end_turn', stop_sequence: null };
    case 'length':
      return { stop_reason: 'max_tokens', stop_sequence: null };
    case 'tool_calls':
    // The deprecated single function call is read as a tool call (openai-chat-answer.ts keeps it).
    case 'function_call':
      // Without a call the answer is text, finished: end_turn sends it through text recovery.
      return { stop_reason: hasToolCalls ? 'tool_use' : 'end_turn', stop_sequence: null };
    case 'content_filter':
      return { stop_reason: 'refusal', stop_sequence: null };
    default: {
      const unhandled: never = reason;
      throw new Error(`Unhandled finish_reason: ${String(unhandled)}`);
    }
  }
}
