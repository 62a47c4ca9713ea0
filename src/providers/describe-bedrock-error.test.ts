// The bedrock provider's errors, from the simulator's Bedrock route (src/sim/cloud-routes): each
// Bedrock exception (x-amzn-errortype over HTTP, an exception frame inside the stream) classified
// as the Anthropic error of the same meaning, with the run error code it ends a run with.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { classifyModelError, type RetryOutcome } from '../model/classify-model-error.js';
import type { ModelRequest } from '../model/model-client.js';
import { startSimulator, type RunningSimulator } from '../sim/simulator-server.js';
import type { FaultSpec } from '../sim/fault-spec.js';
import { createAnthropicProvider } from './anthropic-provider.js';
import { bedrockModelId, createBedrockClient, type BedrockProviderOptions } from './bedrock-client.js';
import type { ModelProvider } from './model-provider.js';

let simulator: RunningSimulator;
let provider: ModelProvider;
let runs = 0;

beforeAll(async () => {
  simulator = await startSimulator({ seed: 7 });
  const options: BedrockProviderOptions = { region: 'us-east-1', baseUrl: simulator.url, awsAccessKey: 'AKIDSIMULATOR', awsSecretKey: 'not-a-secret' };
  provider = createAnthropicProvider({ name: 'bedrock', kind: 'bedrock', limiterIdentity: 'bedrock-test', client: createBedrockClient(options, { connectTimeoutMs: 10_000 }), modelId: (model) => bedrockModelId(options, model) });
});
afterAll(async () => simulator?.close());

/** The described failure of one call that meets `fault` (queued for this call's run id only). */
async function failureUnder(fault: FaultSpec) {
  runs += 1;
  const runId = `run_bedrock_error_${runs}`;
  simulator.faults.add({ ...fault, runId });
  const request: ModelRequest = {
    model: 'claude-sonnet-4-6',
    maxTokens: 1024,
    system: 'You build websites.',
    messages: [{ role: 'user', content: 'Build a small site about lighthouses.' }],
    tools: [],
    toolChoice: { type: 'auto' },
    stopSequences: [],
    headers: { 'x-buildfleet-run-id': runId },
  };
  const error = await provider.call(request, { idleTimeoutMs: 10_000 }).then(
    () => null,
    (caught: unknown) => caught,
  );
  expect(error).not.toBeNull();
  return provider.describeError(error);
}

describe('Bedrock’s HTTP errors (x-amzn-errortype), as the Anthropic errors of the same meaning', () => {
  const cases: { fault: FaultSpec; exception: string; status: number; errorType: string; outcome: RetryOutcome | { kind: 'fatal'; code: string } }[] = [
    { fault: { kind: 'bad_request' }, exception: 'ValidationException', status: 400, errorType: 'invalid_request_error', outcome: { kind: 'fatal', code: 'model_invalid_request_error' } },
    { fault: { kind: 'unauthorized' }, exception: 'AccessDeniedException', status: 403, errorType: 'permission_error', outcome: { kind: 'fatal', code: 'model_permission_error' } },
    { fault: { kind: 'should_retry', status: 404, shouldRetry: false }, exception: 'ResourceNotFoundException', status: 404, errorType: 'not_found_error', outcome: { kind: 'fatal', code: 'model_not_found_error' } },
    { fault: { kind: 'rate_limit' }, exception: 'ThrottlingException', status: 429, errorType: 'rate_limit_error', outcome: { kind: 'rate_limited_backoff' } },
    { fault: { kind: 'overloaded' }, exception: 'ServiceUnavailableException', status: 503, errorType: 'overloaded_error', outcome: { kind: 'overloaded' } },
    { fault: { kind: 'server_error', status: 500 }, exception: 'InternalServerException', status: 500, errorType: 'api_error', outcome: { kind: 'transient' } },
    { fault: { kind: 'server_error', status: 504 }, exception: 'ModelTimeoutException', status: 408, errorType: 'timeout_error', outcome: { kind: 'transient' } },
  ];
  it.each(cases)('$exception → $errorType', async ({ fault, exception, status, errorType, outcome }) => {
    const failure = await failureUnder(fault);
    expect((failure.headers as Headers).get('x-amzn-errortype')).toMatch(new RegExp(`^${exception}:`));
    expect(failure).toMatchObject({ status, errorType });
    expect(classifyModelError(failure)).toMatchObject(outcome);
  });

  it('reads “Input is too long for requested model.” as context_window_exceeded, the message without the status', async () => {
    const message = 'Input is too long for requested model.';
    const failure = await failureUnder({ kind: 'bad_request', message });
    expect(failure).toMatchObject({ status: 400, errorType: 'invalid_request_error', errorCode: 'context_length_exceeded', message });
    expect(classifyModelError(failure)).toEqual({ kind: 'fatal', code: 'context_window_exceeded', message });
  });

  it('reads the Messages API’s own wording of the same overflow alike', async () => {
    const message = 'prompt is too long: 208310 tokens > 200000 maximum';
    const failure = await failureUnder({ kind: 'bad_request', message });
    expect(classifyModelError(failure)).toEqual({ kind: 'fatal', code: 'context_window_exceeded', message });
  });
});

describe('Bedrock’s exception frames inside the stream', () => {
  it('reads validationException as invalid_request_error, and its overflow as context_window_exceeded', async () => {
    const refused = await failureUnder({ kind: 'stream_error', errorType: 'invalid_request_error', message: 'Malformed input request, please reformat your input and try again.' });
    expect(refused).toMatchObject({ status: undefined, errorType: 'invalid_request_error' });
    expect(classifyModelError(refused)).toMatchObject({ kind: 'fatal', code: 'model_invalid_request_error' });
    const overflow = await failureUnder({ kind: 'stream_error', errorType: 'invalid_request_error', message: 'Input is too long for requested model.' });
    expect(classifyModelError(overflow)).toMatchObject({ kind: 'fatal', code: 'context_window_exceeded' });
  });

  it('keeps throttling and unavailability retried as before', async () => {
    expect(classifyModelError(await failureUnder({ kind: 'stream_error', errorType: 'rate_limit_error' }))).toEqual({ kind: 'rate_limited_backoff' });
    expect(classifyModelError(await failureUnder({ kind: 'stream_error' }))).toEqual({ kind: 'overloaded' });
  });
});
