// A rendered message written as the Messages API's server-sent events (docs
// build-with-claude/streaming, "Event types"): `message_start` (content empty, usage with the input
// and cache tokens and a small output_tokens), per block `content_block_start` → deltas
// (`text_delta`, `input_json_delta` with partial_json chunks, `thinking_delta` then one
// `signature_delta`) → `content_block_stop`; `message_delta` (stop fields, cumulative
// output_tokens); `message_stop`. `ping` events come after the first block starts ("a ping event
// … may be interspersed") and then periodically: every PING_EVERY_TOKENS of output and whenever the
// stream would otherwise be silent for PING_INTERVAL_MS. A redacted_thinking block arrives whole in
// its content_block_start, as the real API sends it.
//
// Deltas are paced over the answer's generation time (paced-stream.ts, timing-profile.ts): the first
// content after the time to first token, the rest spread by output written. A scripted `stream_error` fault ends
// the stream early with `event: error` (the real API's mid-stream error, which the SDK turns into
// an APIError carrying `error.type`, see its core/streaming.ts).
//
// Tool input is streamed two ways. A tool whose definition has `eager_input_streaming: true` (or
// leaves it unset while the request carries the `fine-grained-tool-streaming-2025-05-14` beta)
// streams its input as it is generated, in chunks (SDK Tool.eager_input_streaming: "tool input
// parameters will be streamed incrementally as they are generated … rather than buffering the full
// JSON output"; docs agents-and-tools/tool-use/fine-grained-tool-streaming). Every other tool's
// input is buffered and validated per parameter before it is sent ("without having to wait for the
// entire parameter to buffer and validate" is what the feature avoids; the docs' example shows a
// 15 s delay without it): each top-level parameter arrives in one input_json_delta once it is
// generated (split-tool-input-json.ts), and while a long one (a page's `content`) is generated the
// stream carries only pings. Time passes the same either way.
import type { ServerResponse } from 'node:http';
import { createApiErrorBody, type ApiErrorType } from './api-error.js';
import type { RenderedMessage } from './assistant-message.js';
import { writePacedStream, type StreamOutcome, type StreamStallPlan } from './paced-stream.js';
import type { AnswerTiming } from './timing-profile.js';
import { splitIntoDeltas } from './split-into-deltas.js';
import { splitToolInputJson } from './split-tool-input-json.js';
import { outputCharactersOf, type WireBlock } from './wire-block.js';

/** The stream stays silent at most this long: a client idle timeout above it never fires on a live stream. */
export const PING_INTERVAL_MS = 5_000;
/** A ping after every this many output tokens, whatever the pace. */
export const PING_EVERY_TOKENS = 500;
export interface StreamErrorPlan {
  errorType: ApiErrorType;
  message: string;
  /** The error comes once this many output tokens were streamed… */
  afterTokens?: number;
  /** …or after this many events (message_start is the first). Neither: right after message_start. */
  afterEvents?: number;
}

interface PlannedEvent {
  name: string;
  data: unknown;
  /** Output characters written once this event is out, for pacing and `afterTokens`. */
  charactersAt: number;
}

function startBlockOf(block: WireBlock): Record<string, unknown> {
  switch (block.type) {
    case 'text':
      return { type: 'text', text: '' };
    case 'thinking':
      return { type: 'thinking', thinking: '', signature: '' };
    case 'redacted_thinking':
      return { type: 'redacted_thinking', data: block.data };
    case 'tool_use':
      return { type: 'tool_use', id: block.id, name: block.name, input: {} };
    default:
      return {};
  }
}

function deltasOf(block: WireBlock, eagerInputTools: ReadonlySet<string>): Array<{ delta: Record<string, unknown>; characters: number }> {
  switch (block.type) {
    case 'text':
      return splitIntoDeltas({ text: block.text }).map((text) => ({ delta: { type: 'text_delta', text }, characters: text.length }));
    case 'thinking':
      return [
        // A block sent without its text (display `omitted`) "streams a `thinking_delta` with an empty
        // `thinking` string, then its `signature_delta`" (build-with-claude/thinking#streaming-thinking,
        // the newer of its two wordings; the older had no thinking_delta). Its reasoning is generated
        // all the same, so the delta carries its time.
        ...(block.hiddenCharacters > 0
          ? [{ delta: { type: 'thinking_delta', thinking: '' }, characters: block.hiddenCharacters }]
          : splitIntoDeltas({ text: block.thinking }).map((thinking) => ({ delta: { type: 'thinking_delta', thinking }, characters: thinking.length }))),
        // A block cut off by max_tokens has no signature: the stream ended before it (cut-at-max-tokens.ts).
        ...(block.signature === '' ? [] : [{ delta: { type: 'signature_delta', signature: block.signature }, characters: 0 }]),
      ];
    case 'redacted_thinking':
      return [];
    case 'tool_use': {
      // Buffered: one delta per top-level parameter; a call cut by max_tokens sends its incomplete
      // last parameter as it stands when the block ends, so the SDK reads the same input as the
      // JSON answer carries (wire-block.ts toolInputOf).
      const pieces = eagerInputTools.has(block.name) ? splitIntoDeltas({ text: block.inputJson }) : splitToolInputJson({ json: block.inputJson });
      return pieces.map((partial_json) => ({ delta: { type: 'input_json_delta', partial_json }, characters: partial_json.length }));
    }
    default:
      return [];
  }
}

/** Every event of the answer, in order, with the output written by each. */
function planEvents(rendered: RenderedMessage, eagerInputTools: ReadonlySet<string>): PlannedEvent[] {
  const { body, blocks } = rendered;
  const events: PlannedEvent[] = [];
  const startMessage = {
    ...body,
    content: [],
    stop_reason: null,
    stop_sequence: null,
    stop_details: null,
    usage: { ...body.usage, output_tokens: Math.min(1, body.usage.output_tokens) },
  };
  events.push({ name: 'message_start', data: { type: 'message_start', message: startMessage }, charactersAt: 0 });
  let characters = 0;
  let nextPingAt = PING_EVERY_TOKENS * 4;
  blocks.forEach((block, index) => {
    events.push({ name: 'content_block_start', data: { type: 'content_block_start', index, content_block: startBlockOf(block) }, charactersAt: characters });
    if (index === 0) events.push({ name: 'ping', data: { type: 'ping' }, charactersAt: characters });
    if (block.type === 'redacted_thinking') characters += outputCharactersOf(block);
    for (const { delta, characters: written } of deltasOf(block, eagerInputTools)) {
      // The pings due while this delta's output is generated go before it, at their own point, so a
      // long buffered parameter is preceded by pings spread over its generation time.
      while (nextPingAt <= characters + written) {
        events.push({ name: 'ping', data: { type: 'ping' }, charactersAt: nextPingAt });
        nextPingAt += PING_EVERY_TOKENS * 4;
      }
      characters += written;
      events.push({ name: 'content_block_delta', data: { type: 'content_block_delta', index, delta }, charactersAt: characters });
    }
    events.push({ name: 'content_block_stop', data: { type: 'content_block_stop', index }, charactersAt: characters });
  });
  if (blocks.length === 0) events.push({ name: 'ping', data: { type: 'ping' }, charactersAt: 0 });
  events.push({
    name: 'message_delta',
    data: {
      type: 'message_delta',
      delta: { stop_reason: body.stop_reason, stop_sequence: body.stop_sequence, stop_details: body.stop_details },
      usage: { ...body.usage },
    },
    charactersAt: characters,
  });
  events.push({ name: 'message_stop', data: { type: 'message_stop' }, charactersAt: characters });
  return events;
}

function encode(name: string, data: unknown): string {
  return `event: ${name}\ndata: ${JSON.stringify(data)}\n\n`;
}

/** Writes the answer as an event stream on `outgoing` (status 200, `headers` added). */
export async function streamMessage({
  outgoing,
  headers,
  rendered,
  timing,
  streamError,
  stall,
  requestId,
  signal,
  eagerInputTools = [],
}: {
  outgoing: ServerResponse;
  headers: Record<string, string>;
  rendered: RenderedMessage;
  timing: AnswerTiming;
  streamError: StreamErrorPlan | undefined;
  stall?: StreamStallPlan | undefined;
  requestId: string;
  signal: AbortSignal;
  /** Tools whose input streams as generated (eager_input_streaming); the others' is buffered per parameter. */
  eagerInputTools?: readonly string[];
}): Promise<StreamOutcome> {
  return writePacedStream({
    outgoing,
    headers,
    items: planEvents(rendered, new Set(eagerInputTools)),
    encode: (event) => encode(event.name, event.data),
    timing,
    outputTokens: rendered.body.usage.output_tokens,
    stall,
    failure: streamError && {
      isDue: (event, index) => errorIsDue(streamError, index, event),
      encoded: encode('error', createApiErrorBody({ type: streamError.errorType, message: streamError.message, requestId })),
    },
    keepAlive: { intervalMs: PING_INTERVAL_MS, encoded: encode('ping', { type: 'ping' }) },
    signal,
  });
}

function errorIsDue(plan: StreamErrorPlan, index: number, event: PlannedEvent): boolean {
  if (plan.afterTokens !== undefined) return event.charactersAt > plan.afterTokens * 4 || (index > 0 && event.name === 'message_delta');
  return index >= (plan.afterEvents ?? 1);
}
