// The Bedrock client (the SDK's own AnthropicBedrock) against the simulator's Bedrock endpoints
// over loopback: SigV4-signed InvokeModel requests, AWS event-stream answers, Bedrock's errors.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { classifyModelError } from '../model/classify-model-error.js';
import { callModel } from '../model/model-client.js';
import { startSimulator, type RunningSimulator } from '../sim/simulator-server.js';
import { buildTurn, expectBuildTurnAnswer, failureOf } from './testing/cloud-client-turn.js';
import { bedrockModelId, bedrockProviderOptionsSchema, createBedrockClient, type BedrockProviderOptions } from './bedrock-client.js';

function turnFor(options: BedrockProviderOptions, headers: Record<string, string> = {}) {
  return buildTurn({ model: bedrockModelId(options, 'claude-sonnet-4-6'), headers });
}

describe('createBedrockClient against the simulator', () => {
  let simulator: RunningSimulator;
  let options: BedrockProviderOptions;

  beforeAll(async () => {
    simulator = await startSimulator({ seed: 7 });
    options = { region: 'us-east-1', baseUrl: simulator.url, awsAccessKey: 'AKIDSIMULATOR', awsSecretKey: 'not-a-secret' };
  });
  afterAll(async () => {
    await simulator.close();
  });

  it('streams a build turn through callModel: text and tool_use, usage, Bedrock wire shapes', async () => {
    const client = createBedrockClient(options, { connectTimeoutMs: 10_000 });
    const result = await callModel(client, turnFor(options), { idleTimeoutMs: 10_000 });
    // No anthropic-ratelimit-* headers among them: the admission limiter learns from 429s only.
    expectBuildTurnAnswer(result);
    const toolUse = result.response.content.find((block) => block.type === 'tool_use');
    expect(toolUse).toMatchObject({ name: 'write_file', input: { path: expect.any(String), content: expect.any(String) } });
    expect(result.headers?.get('content-type')).toContain('text/event-stream'); // the SDK's transcoded view

    const sent = simulator.requests.at(-1)!;
    expect(sent.path).toBe('/model/anthropic.claude-sonnet-4-6/invoke-with-response-stream');
    expect(sent.headers.authorization).toMatch(/^AWS4-HMAC-SHA256 Credential=AKIDSIMULATOR\/\d{8}\/us-east-1\/bedrock\/aws4_request, SignedHeaders=[^,]*host[^,]*, Signature=[0-9a-f]{64}$/);
    expect(sent.body).toMatchObject({ anthropic_version: 'bedrock-2023-05-31', max_tokens: 4096 });
    expect(sent.body).not.toHaveProperty('model');
    expect(sent.body).not.toHaveProperty('stream');
    expect(sent.streamed).toBe(true);
  });

  it('answers a non-streamed InvokeModel with the Messages JSON and Bedrock token-count headers', async () => {
    const client = createBedrockClient(options, { connectTimeoutMs: 10_000 });
    const { data, response } = await client.messages
      .create({ model: 'anthropic.claude-sonnet-4-6', max_tokens: 1024, messages: [{ role: 'user', content: 'Hello' }] })
      .withResponse();
    expect(data.type).toBe('message');
    expect(response.headers.get('x-amzn-bedrock-output-token-count')).toBe(String(data.usage.output_tokens));
    expect(simulator.requests.at(-1)!.path).toBe('/model/anthropic.claude-sonnet-4-6/invoke');
  });

  it('surfaces a 429 as ThrottlingException, an APIError the classifier treats as a rate limit', async () => {
    const client = createBedrockClient(options, { connectTimeoutMs: 10_000 });
    const failure = await failureOf(callModel(client, turnFor(options, { 'x-buildfleet-fault': 'rate_limit:3' }), { idleTimeoutMs: 10_000 }));
    expect(failure.status).toBe(429);
    expect((failure.headers as Headers).get('x-amzn-errortype')).toMatch(/^ThrottlingException:/);
    // Bedrock sends no retry-after, so the fleet backs off on its own schedule.
    expect(classifyModelError(failure)).toEqual({ kind: 'rate_limited_backoff' });
  });

  it('surfaces an overload (the simulator 529) as a 503 ServiceUnavailableException, classified as overloaded', async () => {
    const client = createBedrockClient(options, { connectTimeoutMs: 10_000 });
    const failure = await failureOf(callModel(client, turnFor(options, { 'x-buildfleet-fault': 'overloaded' }), { idleTimeoutMs: 10_000 }));
    expect(failure.status).toBe(503);
    expect((failure.headers as Headers).get('x-amzn-errortype')).toMatch(/^ServiceUnavailableException:/);
    expect(classifyModelError(failure)).toEqual({ kind: 'overloaded' });
  });

  it('surfaces exception frames in the middle of a stream as the matching error events', async () => {
    const client = createBedrockClient(options, { connectTimeoutMs: 10_000 });
    const overloaded = await failureOf(callModel(client, turnFor(options, { 'x-buildfleet-fault': 'stream_error' }), { idleTimeoutMs: 10_000 }));
    expect(overloaded).toMatchObject({ status: undefined, errorType: 'serviceUnavailableException' });
    expect(classifyModelError(overloaded)).toEqual({ kind: 'overloaded' });
    const throttled = await failureOf(callModel(client, turnFor(options, { 'x-buildfleet-fault': 'stream_error:0:rate_limit_error' }), { idleTimeoutMs: 10_000 }));
    expect(throttled).toMatchObject({ status: undefined, errorType: 'throttlingException' });
    expect(classifyModelError(throttled)).toEqual({ kind: 'rate_limited_backoff' });
  });

  it('refuses a request without a SigV4 signature, and a body the Bedrock way does not allow', async () => {
    const url = `${simulator.url}/model/anthropic.claude-sonnet-4-6/invoke`;
    const body = { anthropic_version: 'bedrock-2023-05-31', max_tokens: 16, messages: [{ role: 'user', content: 'Hi' }] };
    const unsigned = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    expect(unsigned.status).toBe(403);
    expect(unsigned.headers.get('x-amzn-errortype')).toMatch(/^MissingAuthenticationTokenException:/);
    const malformed = await fetch(url, { method: 'POST', headers: { authorization: 'AWS4-HMAC-SHA256 nonsense' }, body: JSON.stringify(body) });
    expect(malformed.status).toBe(400);
    expect(malformed.headers.get('x-amzn-errortype')).toMatch(/^IncompleteSignatureException:/);

    // The shape is checked, not the signature (the simulator does not know the secret key).
    const signed = {
      authorization: `AWS4-HMAC-SHA256 Credential=AKIDSIMULATOR/20260101/us-east-1/bedrock/aws4_request, SignedHeaders=host;x-amz-date, Signature=${'a'.repeat(64)}`,
      'x-amz-date': '20260101T000000Z',
    };
    const withModel = await fetch(url, { method: 'POST', headers: signed, body: JSON.stringify({ ...body, model: 'claude-sonnet-4-6' }) });
    expect(withModel.status).toBe(400);
    expect(withModel.headers.get('x-amzn-errortype')).toMatch(/^ValidationException:/);
    expect(await withModel.json()).toEqual({ message: expect.stringContaining('extraneous key [model]') });
    const { anthropic_version: _version, ...unversioned } = body;
    const withoutVersion = await fetch(url, { method: 'POST', headers: signed, body: JSON.stringify(unversioned) });
    expect(withoutVersion.status).toBe(400);
    expect(await withoutVersion.json()).toEqual({ message: expect.stringContaining('required key [anthropic_version] not found') });
    const answered = await fetch(url, { method: 'POST', headers: signed, body: JSON.stringify(body) });
    expect(answered.status).toBe(200);
  });
});

describe('bedrockModelId', () => {
  it('maps the fleet ids to Bedrock ids, dateless 4.6+ ids by rule, and lets modelIds override', () => {
    expect(bedrockModelId({}, 'claude-sonnet-4-6')).toBe('anthropic.claude-sonnet-4-6');
    expect(bedrockModelId({}, 'claude-opus-4-6')).toBe('anthropic.claude-opus-4-6-v1');
    expect(bedrockModelId({}, 'claude-sonnet-4-5')).toBe('anthropic.claude-sonnet-4-5-20250929-v1:0');
    expect(bedrockModelId({}, 'claude-sonnet-4-0')).toBe('anthropic.claude-sonnet-4-20250514-v1:0');
    expect(bedrockModelId({}, 'claude-opus-4-7')).toBe('anthropic.claude-opus-4-7');
    expect(bedrockModelId({}, 'us.anthropic.claude-sonnet-4-6')).toBe('us.anthropic.claude-sonnet-4-6');
    expect(bedrockModelId({ modelIds: { 'claude-sonnet-4-6': 'global.anthropic.claude-sonnet-4-6' } }, 'claude-sonnet-4-6')).toBe('global.anthropic.claude-sonnet-4-6');
  });

  it('takes static credentials only as a pair', () => {
    expect(bedrockProviderOptionsSchema.safeParse({ region: 'us-east-1', awsAccessKey: 'AKID' }).success).toBe(false);
    expect(bedrockProviderOptionsSchema.safeParse({ region: 'us-east-1', awsSessionToken: 'token' }).success).toBe(false);
    expect(bedrockProviderOptionsSchema.safeParse({ region: 'us-east-1', awsAccessKey: 'AKID', awsSecretKey: 'secret', awsSessionToken: 'token' }).success).toBe(true);
    expect(bedrockProviderOptionsSchema.safeParse({ region: 'us-east-1' }).success).toBe(true);
  });
});
