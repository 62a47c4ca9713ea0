// Bedrock's InvokeModelWithResponseStream answer: `content-type: application/vnd.amazon.eventstream`,
// a sequence of AWS event stream frames (binary: prelude, headers, payload, CRCs). Each Messages
// stream event is one `chunk` frame (`:message-type event`, `:event-type chunk`) whose JSON payload
// is `{"bytes": base64(event JSON)}`; an error is an `exception` frame (`:message-type exception`,
// `:exception-type throttlingException` …) whose payload is `{"message": "…"}` (AWS API reference
// ResponseStream). The Bedrock SDK decodes exactly that (core/streaming.ts eventStreamToSSEResponse
// with AWS_restJson1.ts de_ResponseStream): chunk bytes become SSE events named by their `type`, a
// modelled exception becomes an SSE `error` event whose error.type is the camel-cased exception
// name. Bedrock also adds `amazon-bedrock-invocationMetrics` to the `message_stop` event.
import type { ServerResponse } from 'node:http';
import { EventStreamCodec } from '@smithy/eventstream-codec';
import { cloudHeaders } from './cloud-headers.js';

const codec = new EventStreamCodec(
  (bytes) => new TextDecoder().decode(bytes),
  (text) => new TextEncoder().encode(text),
);

function stringHeader(value: string) {
  return { type: 'string' as const, value };
}

/** One `chunk` frame carrying a Messages stream event. */
export function encodeChunkFrame(event: unknown): Uint8Array {
  const bytes = Buffer.from(JSON.stringify(event), 'utf8').toString('base64');
  return codec.encode({
    headers: { ':event-type': stringHeader('chunk'), ':content-type': stringHeader('application/json'), ':message-type': stringHeader('event') },
    body: new TextEncoder().encode(JSON.stringify({ bytes })),
  });
}

/** One `exception` frame; `exceptionType` as the ResponseStream member names it (camelCase). */
export function encodeExceptionFrame(exceptionType: string, message: string): Uint8Array {
  return codec.encode({
    headers: { ':exception-type': stringHeader(exceptionType), ':content-type': stringHeader('application/json'), ':message-type': stringHeader('exception') },
    body: new TextEncoder().encode(JSON.stringify({ message })),
  });
}

/** The ResponseStream exception an Anthropic stream error stands for. Anthropic's
 * overloaded_error has no member of its own; serviceUnavailableException (503) is Bedrock's
 * "The service isn't available. Try again later." */
export function exceptionTypeForError(errorType: string | undefined): string {
  if (errorType === 'rate_limit_error') return 'throttlingException';
  if (errorType === 'overloaded_error') return 'serviceUnavailableException';
  if (errorType === 'invalid_request_error') return 'validationException';
  return 'internalServerException';
}

interface Usage {
  input_tokens?: number;
  output_tokens?: number;
}

/**
 * The answer stream as Bedrock frames it: a view of `outgoing` whose writes take the Messages
 * server-sent events (as stream-message.ts writes them, whole events) and send frames instead.
 */
export function bedrockEventStreamResponse({ outgoing, requestId }: { outgoing: ServerResponse; requestId: string }): ServerResponse {
  const started = Date.now();
  let firstByteMs: number | null = null;
  let pending = '';
  let inputTokens = 0;
  let outputTokens = 0;

  const frameOf = (name: string, data: Record<string, unknown>): Uint8Array => {
    if (name === 'error') {
      const error = data.error as { type?: string; message?: string } | undefined;
      return encodeExceptionFrame(exceptionTypeForError(error?.type), error?.message ?? 'The stream failed.');
    }
    if (name === 'message_start') inputTokens = (data.message as { usage?: Usage } | undefined)?.usage?.input_tokens ?? 0;
    if (name === 'message_delta') outputTokens = (data.usage as Usage | undefined)?.output_tokens ?? outputTokens;
    if (name === 'message_stop') {
      const invocationLatency = Date.now() - started;
      return encodeChunkFrame({
        ...data,
        'amazon-bedrock-invocationMetrics': {
          inputTokenCount: inputTokens,
          outputTokenCount: outputTokens,
          invocationLatency,
          firstByteLatency: firstByteMs ?? invocationLatency,
        },
      });
    }
    return encodeChunkFrame(data);
  };

  const framesOf = (text: string): Uint8Array[] => {
    pending += text;
    const frames: Uint8Array[] = [];
    let boundary = pending.indexOf('\n\n');
    while (boundary !== -1) {
      const block = pending.slice(0, boundary);
      pending = pending.slice(boundary + 2);
      const name = /^event: (.*)$/m.exec(block)?.[1];
      const data = /^data: (.*)$/m.exec(block)?.[1];
      if (name && data) frames.push(frameOf(name, JSON.parse(data) as Record<string, unknown>));
      boundary = pending.indexOf('\n\n');
    }
    return frames;
  };

  const writeHead = (status: number, headers: Record<string, string> = {}) => {
    const { 'content-type': _sse, ...rest } = headers;
    return outgoing.writeHead(status, {
      ...cloudHeaders({ provider: 'bedrock', headers: rest, requestId }),
      'content-type': 'application/vnd.amazon.eventstream',
      'x-amzn-bedrock-content-type': 'application/json',
    });
  };
  const write = (chunk: string | Uint8Array): boolean => {
    const frames = framesOf(typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8'));
    if (frames.length === 0) return true;
    firstByteMs ??= Date.now() - started;
    return outgoing.write(Buffer.concat(frames));
  };
  const end = (chunk?: string | Uint8Array) => {
    if (chunk !== undefined) write(chunk);
    return outgoing.end();
  };

  return new Proxy(outgoing, {
    get(target, property) {
      if (property === 'writeHead') return writeHead;
      if (property === 'write') return write;
      if (property === 'end') return end;
      const value: unknown = Reflect.get(target, property, target);
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
}
