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
// Pacing is the Messages stream's (stream-message.ts, timing-profile.ts): the first chunk at once,
// the rest spread over the generation time by output written. A `stream_error` fault ends the stream
// with `data: {"error": {...}}` and no `[DONE]`, what an OpenAI server sends when it fails midway;
// openai-node throws `APIError` from such a line (core/streaming.ts: `if (data && data.error) throw
// new APIError(undefined, data.error, undefined, response.headers)`).
import type { ServerResponse } from 'node:http';
import { once } from 'node:events';
import { setTimeout as sleep } from 'node:timers/promises';
import type { StreamErrorPlan, StreamOutcome, StreamStallPlan } from '../stream-message.js';
import { millisecondsForTokens, type AnswerTiming } from '../timing-profile.js';
import type { ChatAnswer } from './chat-completion-answer.js';
import { openAIErrorFor } from './openai-error-answer.js';

/** Characters per delta, cycled: real deltas carry a token or a few. */
const CHUNK_SIZES = [12, 20, 28, 16, 24, 36, 8, 32];
/** Waits shorter than this are not slept: writes are batched instead. */
const MINIMUM_SLEEP_MS = 4;

interface PlannedChunk {
  data: unknown;
  /** Output characters written once this chunk is out, for pacing and `afterTokens`. */
  charactersAt: number;
  /** The chunk carrying finish_reason. */
  finishes?: boolean;
}

function pieces(text: string): string[] {
  const parts: string[] = [];
  let offset = 0;
  for (let index = 0; offset < text.length; index += 1) {
    const size = CHUNK_SIZES[index % CHUNK_SIZES.length] ?? 16;
    parts.push(text.slice(offset, offset + size));
    offset += size;
  }
  return parts;
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
      for (const content of pieces(part.text)) {
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
    for (const fragment of pieces(call.arguments)) {
      characters += fragment.length;
      chunks.push({ data: chunk({ tool_calls: [{ index, function: { arguments: fragment } }] }), charactersAt: characters });
    }
  }
  chunks.push({ data: chunk({}, answer.finishReason), charactersAt: characters, finishes: true });
  if (includeUsage) {
    chunks.push({
      data: { id: answer.id, object: 'chat.completion.chunk', created: answer.created, model: answer.model, system_fingerprint: null, choices: [], usage: answer.usage },
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
  const chunks = planChunks(answer, includeUsage);
  const totalCharacters = chunks[chunks.length - 1]?.charactersAt ?? 0;
  const generationMs = millisecondsForTokens({ timing, outputTokens });
  const dueMs = (chunk: PlannedChunk, index: number) =>
    index === 0 ? 0 : timing.ttftMs + (totalCharacters === 0 ? generationMs : (chunk.charactersAt / totalCharacters) * generationMs);

  const disconnected = new AbortController();
  outgoing.once('close', () => disconnected.abort());
  const stop = AbortSignal.any([signal, disconnected.signal]);

  outgoing.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache', ...headers });
  outgoing.flushHeaders();
  const started = Date.now();
  let stalledMs = 0;
  let pending = '';
  const flush = async () => {
    if (pending === '') return;
    const ok = outgoing.write(pending);
    pending = '';
    if (!ok) await once(outgoing, 'drain', { signal: stop });
  };

  try {
    for (const [index, chunk] of chunks.entries()) {
      if (streamError && errorIsDue(streamError, index, chunk)) {
        pending += encode({ error: openAIErrorFor({ type: streamError.errorType, message: streamError.message }) });
        await flush();
        outgoing.end();
        return 'errored';
      }
      if (stall && index === stall.afterEvents) {
        await flush();
        await sleep(stall.stallMs, undefined, { signal: stop });
        stalledMs = stall.stallMs;
      }
      const waitMs = dueMs(chunk, index) + stalledMs - (Date.now() - started);
      if (waitMs >= MINIMUM_SLEEP_MS) {
        await flush();
        await sleep(waitMs, undefined, { signal: stop });
      }
      pending += encode(chunk.data);
    }
    pending += 'data: [DONE]\n\n';
    await flush();
    outgoing.end();
    return 'completed';
  } catch (error) {
    if (!stop.aborted) throw error;
    outgoing.destroy();
    return 'aborted';
  }
}

function errorIsDue(plan: StreamErrorPlan, index: number, chunk: PlannedChunk): boolean {
  // By tokens: before the first chunk beyond them, at the latest before the finish chunk.
  if (plan.afterTokens !== undefined) return index > 0 && (chunk.charactersAt > plan.afterTokens * 4 || chunk.finishes === true);
  return index >= (plan.afterEvents ?? 1);
}
