// The Vertex client (the SDK's own AnthropicVertex) against the simulator's Vertex endpoints over
// loopback: rawPredict / streamRawPredict with a Bearer token, Vertex's errors.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { classifyModelError } from '../model/classify-model-error.js';
import { callModel } from '../model/model-client.js';
import { startSimulator, type RunningSimulator } from '../sim/simulator-server.js';
import { buildTurn, expectBuildTurnAnswer, failureOf } from './testing/cloud-client-turn.js';
import { createVertexClient, vertexModelId, type VertexProviderOptions } from './vertex-client.js';

function turnFor(options: VertexProviderOptions, headers: Record<string, string> = {}) {
  return buildTurn({ model: vertexModelId(options, 'claude-sonnet-4-5'), headers });
}

describe('createVertexClient against the simulator', () => {
  let simulator: RunningSimulator;
  let options: VertexProviderOptions;

  beforeAll(async () => {
    simulator = await startSimulator({ seed: 7 });
    // The SDK's base URL ends in /v1 (https://{region}-aiplatform.googleapis.com/v1).
    options = { region: 'us-east5', projectId: 'fleet-project', baseUrl: `${simulator.url}/v1`, accessToken: 'ya29.simulator' };
  });
  afterAll(async () => {
    await simulator.close();
  });

  it('streams a build turn through callModel: text and tool_use, usage, Vertex wire shapes', async () => {
    const client = createVertexClient(options, { connectTimeoutMs: 10_000 });
    const result = await callModel(client, turnFor(options), { idleTimeoutMs: 10_000 });
    // No anthropic-ratelimit-* headers among them: the admission limiter learns from 429s only.
    expectBuildTurnAnswer(result);

    const sent = simulator.requests.at(-1)!;
    expect(sent.path).toBe('/v1/projects/fleet-project/locations/us-east5/publishers/anthropic/models/claude-sonnet-4-5@20250929:streamRawPredict');
    expect(sent.headers.authorization).toBe('Bearer ya29.simulator');
    expect(sent.body).toMatchObject({ anthropic_version: 'vertex-2023-10-16', max_tokens: 4096 });
    expect(sent.body).not.toHaveProperty('model');
  });

  it('answers rawPredict with the Messages JSON', async () => {
    const client = createVertexClient(options, { connectTimeoutMs: 10_000 });
    const message = await client.messages.create({ model: 'claude-sonnet-4-6', max_tokens: 1024, messages: [{ role: 'user', content: 'Hello' }] });
    expect(message.type).toBe('message');
    expect(simulator.requests.at(-1)!.path).toMatch(/\/models\/claude-sonnet-4-6:rawPredict$/);
  });

  it('surfaces a 429 as Google RESOURCE_EXHAUSTED, classified as a rate limit', async () => {
    const client = createVertexClient(options, { connectTimeoutMs: 10_000 });
    const failure = await failureOf(callModel(client, turnFor(options, { 'x-buildfleet-fault': 'rate_limit:3' }), { idleTimeoutMs: 10_000 }));
    expect(failure.status).toBe(429);
    expect(failure.message).toMatch(/^Quota exceeded for aiplatform.googleapis.com/);
    expect(classifyModelError(failure)).toEqual({ kind: 'rate_limited_backoff' });
  });

  it('passes the model overloaded 529 through, classified as overloaded', async () => {
    const client = createVertexClient(options, { connectTimeoutMs: 10_000 });
    const failure = await failureOf(callModel(client, turnFor(options, { 'x-buildfleet-fault': 'overloaded' }), { idleTimeoutMs: 10_000 }));
    expect(failure).toMatchObject({ status: 529, errorType: 'overloaded_error' });
    expect(classifyModelError(failure)).toEqual({ kind: 'overloaded' });
  });

  it('refuses a request without a Bearer token, with a model in the body, or without anthropic_version', async () => {
    const url = `${simulator.url}/v1/projects/fleet-project/locations/us-east5/publishers/anthropic/models/claude-sonnet-4-6:rawPredict`;
    const body = { anthropic_version: 'vertex-2023-10-16', max_tokens: 16, messages: [{ role: 'user', content: 'Hi' }] };
    const anonymous = await fetch(url, { method: 'POST', body: JSON.stringify(body) });
    expect(anonymous.status).toBe(401);
    expect(await anonymous.json()).toMatchObject({ error: { code: 401, status: 'UNAUTHENTICATED' } });
    const authorization = { authorization: 'Bearer ya29.simulator' };
    const withModel = await fetch(url, { method: 'POST', headers: authorization, body: JSON.stringify({ ...body, model: 'claude-sonnet-4-6' }) });
    expect(withModel.status).toBe(400);
    const { anthropic_version: _version, ...unversioned } = body;
    const withoutVersion = await fetch(url, { method: 'POST', headers: authorization, body: JSON.stringify(unversioned) });
    expect(withoutVersion.status).toBe(400);
    expect(await withoutVersion.json()).toMatchObject({ error: { type: 'invalid_request_error', message: 'anthropic_version: Field required' } });
    const answered = await fetch(url, { method: 'POST', headers: authorization, body: JSON.stringify(body) });
    expect(answered.status).toBe(200);
  });
});

describe('vertexModelId', () => {
  it('maps the fleet ids to Vertex ids and lets modelIds override', () => {
    expect(vertexModelId({}, 'claude-sonnet-4-6')).toBe('claude-sonnet-4-6');
    expect(vertexModelId({}, 'claude-haiku-4-5')).toBe('claude-haiku-4-5@20251001');
    expect(vertexModelId({}, 'claude-opus-4-0')).toBe('claude-opus-4@20250514');
    expect(vertexModelId({ modelIds: { 'claude-sonnet-4-6': 'claude-sonnet-4-6@custom' } }, 'claude-sonnet-4-6')).toBe('claude-sonnet-4-6@custom');
  });
});
