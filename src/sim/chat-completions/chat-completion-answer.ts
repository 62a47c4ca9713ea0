// A rendered answer (assistant-message.ts) as a chat completion (OpenAI API reference, "The chat
// completion object"; openai-node `ChatCompletion`, src/resources/chat/completions/completions.ts).
// The JSON body and the stream (stream-chat-completion.ts) are both made from one ChatAnswer, so
// `client.chat.completions.stream(...).finalChatCompletion()` equals the JSON answer, ids aside.
import type { RenderedMessage } from '../assistant-message.js';
import { createIdentifier } from '../identifiers.js';
import type { ResponsePlan } from '../response-plan.js';
import type { AnswerUsage } from '../usage-accounting.js';

export interface ChatAnswerToolCall {
  id: string;
  name: string;
  /** The JSON text the model wrote; cut mid-JSON when max_tokens ended the call (finish_reason `length`). */
  arguments: string;
}

/** The answer's pieces in the order they were generated. */
export type ChatAnswerPart = { kind: 'text'; text: string } | { kind: 'tool_call'; index: number; call: ChatAnswerToolCall };

export interface ChatUsage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
  prompt_tokens_details: { cached_tokens: number };
}

export interface ChatAnswer {
  id: string;
  /** Unix seconds. */
  created: number;
  model: string;
  parts: ChatAnswerPart[];
  /** A string rather than the SDK's union: an unknown stop reason passes through as the server's own. */
  finishReason: string;
  usage: ChatUsage;
}

/**
 * finish_reason for the internal stop reason (openai-node `ChatCompletion.Choice.finish_reason`:
 * "`stop` if the model hit a natural stop point or a provided stop sequence, `length` if the maximum
 * number of tokens specified in the request was reached, `content_filter` if content was omitted due
 * to a flag from our content filters, `tool_calls` if the model called a tool"). A context window
 * reached mid-answer is `length` too (vLLM stops at max_model_len with `length`); a pause has no
 * counterpart and reads as a natural stop; a reason the simulator invents passes through as is.
 */
export function finishReasonOf(stopReason: string): string {
  switch (stopReason) {
    case 'end_turn':
    case 'stop_sequence':
    case 'pause_turn':
      return 'stop';
    case 'tool_use':
      return 'tool_calls';
    case 'max_tokens':
    case 'model_context_window_exceeded':
      return 'length';
    case 'refusal':
      return 'content_filter';
    default:
      return stopReason;
  }
}

/** Usage as the chat API reports it: prompt tokens include the cached ones (`prompt_tokens_details.cached_tokens`). */
export function chatUsageOf(usage: AnswerUsage): ChatUsage {
  const promptTokens = usage.input_tokens + usage.cache_creation_input_tokens + usage.cache_read_input_tokens;
  return {
    prompt_tokens: promptTokens,
    completion_tokens: usage.output_tokens,
    total_tokens: promptTokens + usage.output_tokens,
    prompt_tokens_details: { cached_tokens: usage.cache_read_input_tokens },
  };
}

/**
 * The chat answer for a rendered message. Tool calls get `call_…` ids like the OpenAI API's (a
 * scenario's own ids pass through); thinking blocks, which a model without a reasoning parser never
 * returns separately, are left out (their tokens stay in the usage).
 */
export function createChatAnswer({ rendered, plan, model, now }: { rendered: RenderedMessage; plan: ResponsePlan; model: string; now: number }): ChatAnswer {
  const scenarioIds = plan.blocks.flatMap((block) => (block.type === 'tool_use' ? [block.id] : []));
  const parts: ChatAnswerPart[] = [];
  let callIndex = 0;
  for (const block of rendered.blocks) {
    if (block.type === 'text') parts.push({ kind: 'text', text: block.text });
    if (block.type === 'tool_use') {
      const id = scenarioIds[callIndex] ?? createIdentifier({ prefix: 'call_' });
      parts.push({ kind: 'tool_call', index: callIndex, call: { id, name: block.name, arguments: block.inputJson } });
      callIndex += 1;
    }
  }
  return {
    id: createIdentifier({ prefix: 'chatcmpl-', length: 29 }),
    created: Math.floor(now / 1000),
    model,
    parts,
    finishReason: finishReasonOf(rendered.body.stop_reason),
    usage: chatUsageOf(rendered.body.usage),
  };
}

/** The text of the answer, or null when it holds none (OpenAI sends `content: null` beside tool calls). */
export function answerContent(answer: ChatAnswer): string | null {
  const texts = answer.parts.flatMap((part) => (part.kind === 'text' ? [part.text] : []));
  return texts.length === 0 ? null : texts.join('');
}

/** The `chat.completion` JSON body. */
export function chatCompletionBody(answer: ChatAnswer): Record<string, unknown> {
  const toolCalls = answer.parts.flatMap((part) =>
    part.kind === 'tool_call' ? [{ id: part.call.id, type: 'function', function: { name: part.call.name, arguments: part.call.arguments } }] : [],
  );
  return {
    id: answer.id,
    object: 'chat.completion',
    created: answer.created,
    model: answer.model,
    system_fingerprint: null,
    choices: [
      {
        index: 0,
        message: { role: 'assistant', content: answerContent(answer), refusal: null, ...(toolCalls.length > 0 ? { tool_calls: toolCalls } : {}) },
        logprobs: null,
        finish_reason: answer.finishReason,
      },
    ],
    usage: answer.usage,
  };
}
