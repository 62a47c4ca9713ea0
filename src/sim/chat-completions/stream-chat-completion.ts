// A chat answer written as the chat completions stream (OpenAI API reference, "The chat completion
// chunk object"; openai-node src/core/streaming.ts reads `data:` lines until `[DONE]`, and
// lib/ChatCompletionStream.ts accumulates the chunks): `data: {chunk}\n\n` lines of
// `object: 'chat.completion.chunk'`. The first delta is `{role: 'assistant', content: ''}`; text
// arrives in `content` deltas; a tool call starts with `{index, id, type: 'function', function:
// {name, arguments: ''}}` and its arguments follow as fragments on the same index, streamed as they
// are generated; then a chunk with an empty delta and the `finish_reason`; with
// `stream_options.include_usage` every chunk carries `usage: null` and one more chunk with `choices:
// []` carries the usage ("An additional chunk will be streamed before the data: [DONE] message");
// then `data: [DONE]`. No keep-alive comments: neither OpenAI nor vLLM send any.
//
// Pacing is the Messages stream's (paced-stream.ts, timing-profile.ts): the first chunk at once,
// the rest spread over the generation time by output written. A `stream_error` fault ends the stream
// with `data: {"error": {...}}` and no `[DONE]`, what an OpenAI server sends when it fails midway;
// openai-node throws `APIError` from such a line (core/streaming.ts: `if (data && data.error) throw
// new APIError(undefined, data.error, undefined, response.headers)`).
import type { ServerResponse } from 'node:http';
import { writePacedStream, type StreamOutcome, type StreamStallPlan } from '../paced-stream.js';
import { splitIntoDeltas } from '../split-into-deltas.js';
import type { StreamErrorPlan } from '../stream-message.js';
import type { AnswerTiming } from '../timing-profile.js';
import type { ChatAnswer } from './chat-completion-answer.js';
import { openAIErrorFor } from './openai-error-answer.js';

interface PlannedChunk {
  data: unknown;
  /** Output characters written once this chunk is out, for pacing and `afterTokens`. */
  charactersAt: number;
  /** The chunk carrying finish_reason. */
  finishes?: boolean;
}

function planChunks(answer: ChatAnswer, includeUsage: boolean): PlannedChunk[] {
  const chunk = (delta: Record<string, unknown>, finishReason: string | null = null) => ({
    id: answer.id,
    object: 'chat.completion.chunk',
    created: answer.created,
    model: answer.model,
    system_fingerprint: null,
    choices: [{ index: 0, delta, logprobs: null, finish_reason: finishReason }],
    ...(includeUsage ? { usage: null } : {}),
  });
  const chunks: PlannedChunk[] = [{ data: chunk({ role: 'assistant', content: '' }), charactersAt: 0 }];
  let characters = 0;
  for (const part of answer.parts) {
    if (part.kind === 'text') {
      for (const content of splitIntoDeltas({ text: part.text })) {
        characters += content.length;
        chunks.push({ data: chunk({ content }), charactersAt: characters });
      }
      continue;
    }
    const { index, call } = part;
    chunks.push({
      data: chunk({ tool_calls: [{ index, id: call.id, type: 'function', function: { name: call.name, arguments: '' } }] }),
      charactersAt: characters,
    });
    for (const fragment of splitIntoDeltas({ text: call.arguments })) {
      characters += fragment.length;
      chunks.push({ data: chunk({ tool_calls: [{ index, function: { arguments: fragment } }] }), charactersAt: characters });
    }
  }
  chunks.push({ data: chunk({}, answer.finishReason), charactersAt: characters, finishes: true });
  if (includeUsage) {
    chunks.push({
      data: {
        id: answer.id,
        object: 'chat.completion.chunk',
        created: answer.created,
        model: answer.model,
        system_fingerprint: null,
        choices: [],
        usage: answer.usage,
      },
      charactersAt: characters,
    });
  }
  return chunks;
}

function encode(data: unknown): string {
  return `data: ${JSON.stringify(data)}\n\n`;
}

/** Writes the answer as a chat completions stream on `outgoing` (status 200, `headers` added). */
export async function streamChatCompletion({
  outgoing,
  headers,
  answer,
  outputTokens,
  includeUsage,
  timing,
  streamError,
  stall,
  signal,
}: {
  outgoing: ServerResponse;
  headers: Record<string, string>;
  answer: ChatAnswer;
  /** Output tokens of the whole answer (thinking included), which the generation time is made of. */
  outputTokens: number;
  includeUsage: boolean;
  timing: AnswerTiming;
  streamError: StreamErrorPlan | undefined;
  stall: StreamStallPlan | undefined;
  signal: AbortSignal;
}): Promise<StreamOutcome> {
  return writePacedStream({
    outgoing,
    headers,
    items: planChunks(answer, includeUsage),
    encode: (chunk) => encode(chunk.data),
    timing,
    outputTokens,
    stall,
    failure: streamError && {
      isDue: (chunk, index) => errorIsDue(streamError, index, chunk),
      encoded: encode({ error: openAIErrorFor({ type: streamError.errorType, message: streamError.message }) }),
    },
    trailer: 'data: [DONE]\n\n',
    signal,
  });
}

function errorIsDue(plan: StreamErrorPlan, index: number, chunk: PlannedChunk): boolean {
  // By tokens: before the first chunk beyond them, at the latest before the finish chunk.
  if (plan.afterTokens !== undefined) return index > 0 && (chunk.charactersAt > plan.afterTokens * 4 || chunk.finishes === true);
  return index >= (plan.afterEvents ?? 1);
}
