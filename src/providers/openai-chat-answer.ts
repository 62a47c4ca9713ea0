// A streamed OpenAI chat completion, chunk by chunk, into the fleet's canonical answer
// (src/domain/model-message.ts ModelResponse). Accumulated here rather than by the SDK's
// ChatCompletionStream: that one throws a bare OpenAIError for a stream without finish_reason and
// drops what the fleet needs to tell such a stream from a finished one (lib/ChatCompletionStream.ts
// `finalizeChatCompletion`: "missing finish_reason for choice 0"), and vLLM's `stop_reason` field.
// The chunk shape: api-reference/chat-streaming/streaming (SDK ChatCompletionChunk).
import type OpenAI from 'openai';
import type { AssistantBlock, ModelResponse } from '../domain/model-message.js';
import type { UsageByClass } from '../domain/usage.js';
import { estimateTextTokens, type Tokenizer } from '../domain/estimate-text-tokens.js';
import { isAbortedFinish, mapFinishReason } from './openai-finish-reason.js';

interface ToolCallSoFar {
  id: string | null;
  name: string;
  arguments: string;
}

/** What the chunks said so far; `finishReason` null until the choice finished. */
export interface ChatAnswerSoFar {
  id: string | null;
  model: string | null;
  chunks: number;
  text: string;
  /** The tool calls in the order they started. */
  toolCalls: ToolCallSoFar[];
  /** The call each wire `index` last started: later deltas of that index continue it. */
  callAtIndex: Map<number, ToolCallSoFar>;
  /** The deprecated single function call (`delta.function_call`), kept as a tool call. */
  functionCall: { name: string; arguments: string } | null;
  finishReason: string | null;
  /** vLLM's `stop_reason` on the finished choice (openai-finish-reason.ts). */
  matchedStop: unknown;
  usage: OpenAI.CompletionUsage | null;
}

export function emptyChatAnswer(): ChatAnswerSoFar {
  return {
    id: null,
    model: null,
    chunks: 0,
    text: '',
    toolCalls: [],
    callAtIndex: new Map(),
    functionCall: null,
    finishReason: null,
    matchedStop: null,
    usage: null,
  };
}

/** Adds one chunk (choice 0: the fleet asks for one choice). Returns what the chunk added, for
 * progress: characters written and the name of a tool call that started. */
export function addChatChunk(answer: ChatAnswerSoFar, chunk: OpenAI.Chat.ChatCompletionChunk): { characters: number; toolStarted: string | null } {
  answer.chunks += 1;
  answer.id ??= chunk.id ?? null;
  answer.model ??= chunk.model ?? null;
  // With include_usage the usage comes in a last chunk whose choices are empty; other chunks carry
  // `usage: null` (api-reference/chat/create, stream_options.include_usage).
  if (chunk.usage) answer.usage = chunk.usage;
  let characters = 0;
  let toolStarted: string | null = null;
  for (const choice of chunk.choices ?? []) {
    if (choice.index !== 0) continue;
    const delta = choice.delta ?? {};
    if (typeof delta.content === 'string') {
      answer.text += delta.content;
      characters += delta.content.length;
    }
    for (const call of delta.tool_calls ?? []) {
      const known = toolCallOfDelta(answer, call);
      // The id and name come with a call's first delta; its arguments stream in pieces after.
      if (call.id) known.id ??= call.id;
      if (call.function?.name && known.name === '') {
        known.name = call.function.name;
        toolStarted = call.function.name;
      }
      if (call.function?.arguments) {
        known.arguments += call.function.arguments;
        characters += call.function.arguments.length;
      }
    }
    if (delta.function_call) {
      answer.functionCall ??= { name: '', arguments: '' };
      if (delta.function_call.name && answer.functionCall.name === '') {
        answer.functionCall.name = delta.function_call.name;
        toolStarted = delta.function_call.name;
      }
      if (delta.function_call.arguments) answer.functionCall.arguments += delta.function_call.arguments;
    }
    if (choice.finish_reason) {
      answer.finishReason = choice.finish_reason;
      answer.matchedStop = (choice as { stop_reason?: unknown }).stop_reason ?? null;
    }
  }
  return { characters, toolStarted };
}

/**
 * The call a streamed tool-call delta belongs to, started anew when the delta starts one. OpenAI
 * keys a call by `index` and sends its `id` and name once, in its first delta (api-reference/
 * chat-streaming, ChoiceDeltaToolCall). Other servers do not: Ollama streams every call of a
 * parallel answer as one delta at `index: 0`, each with its own id (ollama/ollama#15457, #15497),
 * and before 0.4.7 sent no `index` at all (#7881). So a delta whose id differs from the call at
 * its index starts a new call when it is the head of one — it carries a function name — and the
 * call so far is complete (its arguments parse as JSON) and not the same id. Neither signal alone
 * will do: some servers send a fresh id on every delta of one call, the name repeated or not
 * (poolsideai/pool#9, mlx-openai-server before #216), and some repeat the same id and name on every
 * fragment; a fragment never completes the JSON of the call before it. A delta without an index
 * continues (or, when it starts one, follows) the last call.
 */
function toolCallOfDelta(answer: ChatAnswerSoFar, call: OpenAI.Chat.ChatCompletionChunk.Choice.Delta.ToolCall): ToolCallSoFar {
  const index = typeof call.index === 'number' ? call.index : null;
  const current = index === null ? answer.toolCalls.at(-1) : answer.callAtIndex.get(index);
  const id = call.id || null;
  const name = call.function?.name || null;
  const startsAnother =
    current !== undefined &&
    name !== null &&
    current.name !== '' &&
    (id === null || current.id === null || id !== current.id) &&
    isCompleteJson(current.arguments);
  if (current !== undefined && !startsAnother) return current;
  const started: ToolCallSoFar = { id: null, name: '', arguments: '' };
  answer.toolCalls.push(started);
  if (index !== null) answer.callAtIndex.set(index, started);
  return started;
}

function isCompleteJson(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

/** What usageOfChatAnswer falls back on when the server reported no usage. */
export interface UsageEstimate {
  /** The request's estimated prompt (estimate-prompt-tokens.ts). */
  promptTokens: number;
  tokenizer: Tokenizer;
}

/** The answer's usage by class: prompt_tokens includes the cached part
 * (`prompt_tokens_details.cached_tokens`, api-reference/chat/object usage), which is a cache read;
 * nothing is a cache write (OpenAI-compatible servers bill none). Without a usage chunk (a server
 * that ignores include_usage) the counts are estimated: the request's estimated prompt and the
 * characters written in the model's tokenizer (domain/estimate-text-tokens.ts), so budgets still bind. */
export function usageOfChatAnswer(answer: Pick<ChatAnswerSoFar, 'usage' | 'text' | 'toolCalls' | 'functionCall'>, estimate: UsageEstimate): UsageByClass {
  const usage = answer.usage;
  if (!usage) {
    const written =
      answer.text.length +
      answer.toolCalls.reduce((sum, call) => sum + call.name.length + call.arguments.length, 0) +
      (answer.functionCall?.arguments.length ?? 0);
    return {
      input_tokens: estimate.promptTokens,
      cache_write_5m_input_tokens: 0,
      cache_write_1h_input_tokens: 0,
      cache_read_input_tokens: 0,
      output_tokens: estimateTextTokens({ characters: written, tokenizer: estimate.tokenizer }),
    };
  }
  const count = (value: unknown) => (typeof value === 'number' && Number.isFinite(value) && value > 0 ? Math.floor(value) : 0);
  const prompt = count(usage.prompt_tokens);
  const cached = Math.min(prompt, count(usage.prompt_tokens_details?.cached_tokens));
  return {
    input_tokens: prompt - cached,
    cache_write_5m_input_tokens: 0,
    cache_write_1h_input_tokens: 0,
    cache_read_input_tokens: cached,
    output_tokens: count(usage.completion_tokens),
  };
}

/** A tool call's arguments as its input, parsed strictly. Text that is not a JSON object is kept
 * as an input that names the problem (like model-client.ts readToolInput): the fleet's schema
 * check refuses it as tool_input_invalid and tells the model, and the answer already paid for is
 * not sent again. No arguments at all (llama.cpp's server for a call without parameters) is `{}`. */
export function parseToolArguments(text: string): unknown {
  if (text.trim() === '') return {};
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    return { INVALID_JSON: `${error instanceof Error ? error.message : String(error)} in the arguments ${JSON.stringify(text.slice(0, 200))}` };
  }
}

/** The canonical answer of a finished stream (finishReason set), or null when it never finished
 * or the server aborted it (openai-finish-reason.ts isAbortedFinish): either is incomplete. */
export function toModelResponseOfChat({
  answer,
  stopSequences,
  estimate,
  fallbackModel,
}: {
  answer: ChatAnswerSoFar;
  stopSequences: readonly string[];
  estimate: UsageEstimate;
  fallbackModel: string;
}): ModelResponse | null {
  if (answer.finishReason === null || isAbortedFinish(answer.finishReason)) return null;
  const id = answer.id ?? 'chatcmpl-unknown';
  const content: AssistantBlock[] = [];
  if (answer.text !== '') content.push({ type: 'text', text: answer.text });
  const calls = answer.toolCalls;
  for (const [index, call] of calls.entries()) {
    // Ids are answered verbatim (openai-chat-request.ts); a server that sent none gets one made
    // from the answer's id, stable for this answer.
    content.push({ type: 'tool_use', id: call.id ?? `call_${id}_${index}`, name: call.name, input: parseToolArguments(call.arguments) });
  }
  if (answer.functionCall) {
    content.push({ type: 'tool_use', id: `call_${id}_function`, name: answer.functionCall.name, input: parseToolArguments(answer.functionCall.arguments) });
  }
  const stop = mapFinishReason({
    finishReason: answer.finishReason,
    matchedStop: answer.matchedStop,
    stopSequences,
    hasToolCalls: calls.length > 0 || answer.functionCall !== null,
  });
  return {
    id,
    model: answer.model ?? fallbackModel,
    content,
    stop_reason: stop.stop_reason,
    stop_sequence: stop.stop_sequence,
    usage: usageOfChatAnswer(answer, estimate),
  };
}
