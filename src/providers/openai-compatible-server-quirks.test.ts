// The openai_compatible provider against a raw HTTP server on loopback that answers the way some
// real servers do and the simulator does not: an old vLLM's top-level error body, vLLM's
// finish_reason `abort`, and the body field of the output limit.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { classifyModelError } from '../model/classify-model-error.js';
import { ModelStreamIncompleteError, paidUsageOfFailedCall, type ModelRequest } from '../model/model-client.js';
import { createOpenAiCompatibleProvider, openAiCompatibleProviderOptionsSchema } from './openai-compatible-provider.js';
import { estimateTextTokens } from '../domain/estimate-text-tokens.js';

type Answer = (request: IncomingMessage, body: string, response: ServerResponse) => void;

let server: Server;
let baseUrl: string;
let answer: Answer = (_request, _body, response) => response.end();
const bodies: unknown[] = [];

beforeAll(async () => {
  server = createServer((request, response) => {
    let body = '';
    request.on('data', (piece: Buffer) => (body += piece.toString('utf8')));
    request.on('end', () => {
      bodies.push(JSON.parse(body) as unknown);
      answer(request, body, response);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
});
afterAll(async () => new Promise<void>((resolve) => server.close(() => resolve())));

const request: ModelRequest = {
  model: 'qwen-coder',
  maxTokens: 512,
  system: 'You build sites.',
  messages: [{ role: 'user', content: 'Build a bakery site.' }],
  tools: [],
  toolChoice: { type: 'auto' },
  stopSequences: [],
  headers: {},
};

function providerWith(options: Record<string, unknown> = {}) {
  return createOpenAiCompatibleProvider({ name: 'vllm', options: openAiCompatibleProviderOptionsSchema.parse({ baseUrl, ...options }), limiterIdentity: 'url-test', connectTimeoutMs: 10_000 });
}

async function rejectionOf(call: Promise<unknown>): Promise<unknown> {
  const error = await call.then(
    () => null,
    (caught: unknown) => caught,
  );
  expect(error).not.toBeNull();
  return error;
}

function streamChunks(response: ServerResponse, chunks: readonly unknown[]) {
  response.writeHead(200, { 'content-type': 'text/event-stream' });
  for (const chunk of chunks) response.write(`data: ${JSON.stringify(chunk)}\n\n`);
  response.end();
}

const chunk = (delta: Record<string, unknown>, finish: string | null = null) => ({ id: 'chatcmpl-1', object: 'chat.completion.chunk', created: 1, model: 'm', choices: [{ index: 0, delta, finish_reason: finish }] });

describe('an older vLLM’s error body, its fields at the top level', () => {
  it('keeps the message, so a context overflow ends the run context_window_exceeded', async () => {
    // vLLM's ErrorResponse before errors were nested (vllm/entrypoints/openai/protocol.py).
    const message = "This model's maximum context length is 32768 tokens. However, you requested 40000 tokens (39488 in the messages, 512 in the completion). Please reduce the length of the messages or completion.";
    answer = (_request, _body, response) => {
      response.writeHead(400, { 'content-type': 'application/json', 'x-request-id': 'req-old-vllm' });
      response.end(JSON.stringify({ object: 'error', message, type: 'BadRequestError', param: null, code: 400 }));
    };
    const provider = providerWith();
    const failure = provider.describeError(await rejectionOf(provider.call(request, { idleTimeoutMs: 10_000 })));
    expect(failure).toMatchObject({ status: 400, message, errorCode: 'context_length_exceeded', requestId: 'req-old-vllm' });
    expect(classifyModelError(failure)).toEqual({ kind: 'fatal', code: 'context_window_exceeded', message });
  });

  it('leaves a nested body as it is', async () => {
    answer = (_request, _body, response) => {
      response.writeHead(404, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ error: { message: 'The model `qwen-coder` does not exist.', type: 'NotFoundError', param: null, code: 404 } }));
    };
    const provider = providerWith();
    const failure = provider.describeError(await rejectionOf(provider.call(request, { idleTimeoutMs: 10_000 })));
    expect(failure).toMatchObject({ status: 404, message: 'The model `qwen-coder` does not exist.' });
    expect(classifyModelError(failure)).toMatchObject({ kind: 'fatal', code: 'model_not_found_error' });
  });
});

describe('finish_reason abort (vLLM engine shutdown, sleep or scale-down)', () => {
  it('is an incomplete answer: retried as transient, what was streamed charged', async () => {
    answer = (_request, _body, response) => streamChunks(response, [chunk({ role: 'assistant', content: 'Writing the ' }), chunk({ content: 'index page' }), chunk({}, 'abort')]);
    const provider = providerWith();
    const error = await rejectionOf(provider.call(request, { idleTimeoutMs: 10_000 }));
    expect(error).toBeInstanceOf(ModelStreamIncompleteError);
    expect((error as Error).message).toContain('abort');
    expect(classifyModelError(provider.describeError(error))).toEqual({ kind: 'transient' });
    // qwen-coder is not in the catalog: its estimates take the newer tokenizer, so they err high.
    expect(paidUsageOfFailedCall(error)).toMatchObject({ output_tokens: estimateTextTokens({ characters: 'Writing the index page'.length, tokenizer: 'newer' }) });
  });
});

describe('maxTokensField', () => {
  it('sends the output limit as max_tokens by default, as max_completion_tokens when set (OpenAI’s reasoning models)', async () => {
    answer = (_request, _body, response) => streamChunks(response, [chunk({ content: 'Done.' }, 'stop')]);
    bodies.length = 0;
    await providerWith().call(request, { idleTimeoutMs: 10_000 });
    await providerWith({ maxTokensField: 'max_completion_tokens' }).call(request, { idleTimeoutMs: 10_000 });
    expect(bodies[0]).toMatchObject({ max_tokens: 512 });
    expect(bodies[0]).not.toHaveProperty('max_completion_tokens');
    expect(bodies[1]).toMatchObject({ max_completion_tokens: 512 });
    expect(bodies[1]).not.toHaveProperty('max_tokens');
    expect(openAiCompatibleProviderOptionsSchema.safeParse({ baseUrl, maxTokensField: 'max_new_tokens' }).success).toBe(false);
  });
});

describe('baseUrl', () => {
  it('must be http(s)', () => {
    expect(openAiCompatibleProviderOptionsSchema.safeParse({ baseUrl: 'https://api.openai.com/v1' }).success).toBe(true);
    const ftp = openAiCompatibleProviderOptionsSchema.safeParse({ baseUrl: 'ftp://gpu-1:8000/v1' });
    expect(ftp.error?.issues).toMatchObject([{ path: ['baseUrl'], message: 'must be an http:// or https:// URL' }]);
  });
});
