// Claude on Bedrock and on Vertex AI selected by configuration, end to end (issue #19): a fleet
// whose BUILDFLEET_PROVIDERS declares a `bedrock` and a `vertex` provider at the simulator, as an
// operator would, and whose default provider (BUILDFLEET_PROVIDER) is `bedrock`. Runs are created
// through the API, built through the real queues by the SDK's own Bedrock and Vertex clients, and
// what went over the wire is read back from the simulator's request log: every model call of a run
// on its cloud's path with its cloud's authentication, none on the Messages API.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiKeyStore } from '../../src/auth/api-key-store.js';
import { expectPublishedSite } from '../support/expect-published-site.js';
import { startInProcessFleet as startFleet } from '../../src/dev/in-process-fleet.js';
import { freePort } from '../../src/dev/private-redis.js';
import { lookupModelPrice } from '../../src/domain/model-prices.js';
import { addUsage, EMPTY_USAGE, usageFromApi, type ApiUsage } from '../../src/domain/usage.js';
import { costMicroUsd } from '../../src/domain/usage-cost.js';
import { newRunId, type RunRecord } from '../../src/engine/index.js';
import { bedrockModelId } from '../../src/providers/bedrock-client.js';
import { vertexModelId } from '../../src/providers/vertex-client.js';
import type { RecordedRequest } from '../../src/sim/simulator-server.js';
import { testRedisEnv, testRedisUrl, uniquePrefix } from '../support/redis.js';
import type { InProcessFleet } from '../support/in-process-fleet.js';

const AWS_ACCESS_KEY = 'AKIDFLEETBEDROCK';
const VERTEX_TOKEN = 'ya29.fleet-vertex';
const VERTEX_PROJECT = 'fleet-project';
const VERTEX_REGION = 'us-east5';
/** A Bedrock id with a date and a version suffix (`…-v1:0`): the `:` must survive the URL. */
const BEDROCK_RUN_MODEL = 'claude-haiku-4-5';
/** A Vertex id of the `@date` shape. */
const VERTEX_RUN_MODEL = 'claude-sonnet-4-5';
const SIGV4 = new RegExp(`^AWS4-HMAC-SHA256 Credential=${AWS_ACCESS_KEY}/\\d{8}/us-west-2/bedrock/aws4_request, SignedHeaders=[^,]*host[^,]*, Signature=[0-9a-f]{64}$`);

let harness: InProcessFleet;

beforeAll(async () => {
  // The declarations name the simulator's address, so it gets a port chosen before the fleet's
  // configuration is read; the API and the model worker then share one configuration, as in a
  // deployment.
  const simulatorPort = await freePort();
  const simulatorUrl = `http://127.0.0.1:${simulatorPort}`;
  const providers = {
    bedrock: { kind: 'bedrock', region: 'us-west-2', baseUrl: simulatorUrl, awsAccessKey: AWS_ACCESS_KEY, awsSecretKey: 'not-a-secret' },
    vertex: { kind: 'vertex', region: VERTEX_REGION, projectId: VERTEX_PROJECT, baseUrl: `${simulatorUrl}/v1`, accessToken: VERTEX_TOKEN },
  };
  harness = await startFleet({
    redisUrl: testRedisUrl(),
    prefix: uniquePrefix('cloudprov'),
    simulator: { port: simulatorPort },
    env: {
      ...testRedisEnv(),
      BUILDFLEET_PROVIDERS: JSON.stringify(providers),
      BUILDFLEET_PROVIDER: 'bedrock',
      BUILDFLEET_RETRY_BASE_MS: '40',
    },
  });
});
afterAll(async () => harness?.close());

async function callApi(method: 'POST' | 'PUT' | 'GET', path: string, body?: object, token = harness.apiKey): Promise<{ status: number; json: any }> {
  const response = await fetch(`${harness.apiUrl}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body ? { 'content-type': 'application/json' } : {}) },
    ...(body ? { body: JSON.stringify(body) } : {}),
  });
  return { status: response.status, json: await response.json() };
}

/** Creates a run through POST /v1/runs and waits for it to settle. */
async function buildThroughApi(body: object, token = harness.apiKey): Promise<RunRecord> {
  const created = await callApi('POST', '/v1/runs', { prompt: 'Build a small bakery website.', ...body }, token);
  expect(created.status, JSON.stringify(created.json)).toBe(202);
  return harness.waitForRun(created.json.id, 90_000);
}

const requestsOf = (runId: string): RecordedRequest[] => harness.simulator.requests.filter((request) => request.headers['x-buildfleet-run-id'] === runId);

/** The run built a site: succeeded, its finish verified, deployed, and the sites origin serves it. */
async function expectDeployedSite(run: RunRecord): Promise<void> {
  await expectPublishedSite({ run, sitesUrl: harness.sitesUrl });
}

/** Tool calls the model made were dispatched and answered. */
async function expectToolCalls(runId: string): Promise<void> {
  const events = await harness.fleet.store.readEvents(runId);
  const ends = events.filter((event) => event.event === 'tool-call-end');
  expect(ends.length).toBeGreaterThan(3);
  expect(ends.filter((event) => event.ok === true).length).toBeGreaterThan(3);
}

/** Every model call of the run went to Bedrock's streaming InvokeModel path for `fleetModel`, SigV4-signed. */
function expectEveryCallOnBedrock(runId: string, fleetModel: string): RecordedRequest[] {
  const requests = requestsOf(runId);
  expect(requests.length).toBeGreaterThan(3);
  const expectedPath = `/model/${bedrockModelId({}, fleetModel)}/invoke-with-response-stream`;
  for (const request of requests) {
    expect(decodeURIComponent(request.path)).toBe(expectedPath);
    expect(request.headers.authorization).toMatch(SIGV4);
    expect(request.body).toMatchObject({ anthropic_version: 'bedrock-2023-05-31' });
    expect(request.body).not.toHaveProperty('model');
  }
  expect(requests.filter((request) => request.path.startsWith('/v1/messages'))).toEqual([]);
  return requests;
}

describe('Claude on Bedrock and Vertex, selected by configuration, through the queue', () => {
  it('builds a run naming provider bedrock through InvokeModelWithResponseStream, SigV4-signed, never the Messages API', async () => {
    const run = await buildThroughApi({ provider: 'bedrock', model: BEDROCK_RUN_MODEL });
    await expectDeployedSite(run);
    expect(run.provider).toBe('bedrock');
    expect(run.model).toBe(BEDROCK_RUN_MODEL);
    await expectToolCalls(run.id);
    const requests = expectEveryCallOnBedrock(run.id, BEDROCK_RUN_MODEL);
    // The id carries Bedrock's `:0` version suffix; the SDK's path encoder (encodeURIPath) leaves
    // `:` as it is, a path character in RFC 3986.
    expect(requests[0]!.path).toBe('/model/anthropic.claude-haiku-4-5-20251001-v1:0/invoke-with-response-stream');
    expect(requests.every((request) => request.status === 200)).toBe(true);
    // The run's usage came from the Bedrock answers (decoded from the AWS event stream).
    expect(run.usage.output_tokens).toBeGreaterThan(0);
    const view = await callApi('GET', `/v1/runs/${run.id}`);
    expect(view.json).toMatchObject({ provider: 'bedrock', status: 'succeeded' });
  }, 120_000);

  it('builds a run naming provider vertex through streamRawPredict with a Bearer token, never the Messages API', async () => {
    const run = await buildThroughApi({ provider: 'vertex', model: VERTEX_RUN_MODEL });
    await expectDeployedSite(run);
    expect(run.provider).toBe('vertex');
    await expectToolCalls(run.id);
    const requests = requestsOf(run.id);
    expect(requests.length).toBeGreaterThan(3);
    const expectedPath = `/v1/projects/${VERTEX_PROJECT}/locations/${VERTEX_REGION}/publishers/anthropic/models/${vertexModelId({}, VERTEX_RUN_MODEL)}:streamRawPredict`;
    expect(expectedPath).toContain('claude-sonnet-4-5@20250929');
    for (const request of requests) {
      expect(decodeURIComponent(request.path)).toBe(expectedPath);
      expect(request.headers.authorization).toBe(`Bearer ${VERTEX_TOKEN}`);
      expect(request.body).toMatchObject({ anthropic_version: 'vertex-2023-10-16' });
      expect(request.body).not.toHaveProperty('model');
    }
    expect(requests.filter((request) => request.path.startsWith('/v1/messages'))).toEqual([]);
    const view = await callApi('GET', `/v1/runs/${run.id}`);
    expect(view.json).toMatchObject({ provider: 'vertex', status: 'succeeded' });
  }, 120_000);

  it('gives a run naming no provider the fleet default, BUILDFLEET_PROVIDER=bedrock, and calls Bedrock for it', async () => {
    const run = await buildThroughApi({});
    await expectDeployedSite(run);
    expect(run.provider).toBe('bedrock');
    expectEveryCallOnBedrock(run.id, harness.config.BUILDFLEET_MODEL);
    const view = await callApi('GET', `/v1/runs/${run.id}`);
    expect(view.json.provider).toBe('bedrock');
  }, 120_000);

  it('retries a Bedrock ThrottlingException storm through the queue and counts usage and cost from the Bedrock answers', async () => {
    // The first six calls of the run are throttled: Bedrock answers them 429 ThrottlingException
    // without retry-after, so each is a rate_limited_backoff cycle that waits a growing backoff and
    // spends no job attempt — six is more than BUILDFLEET_MODEL_ATTEMPTS (5), which a storm that
    // spent attempts would have exhausted — and the seventh call is answered.
    const throttles = 6;
    const runId = newRunId();
    harness.simulator.faults.add({ kind: 'rate_limit', runId, count: throttles });
    await harness.submit({ runId });
    const run = await harness.waitForRun(runId, 90_000);
    await expectDeployedSite(run);
    expect(run.provider).toBe('bedrock');

    const requests = expectEveryCallOnBedrock(runId, harness.config.BUILDFLEET_MODEL);
    const throttled = requests.filter((request) => request.status === 429);
    expect(throttled).toHaveLength(throttles);
    expect(requests.slice(0, throttles)).toEqual(throttled);
    expect(requests.slice(throttles).every((request) => request.status === 200)).toBe(true);

    // The run's events show each throttle as a rate-limit retry of the first turn.
    const events = await harness.fleet.store.readEvents(runId);
    const errors = events.filter((event) => event.event === 'model-call-fail');
    expect(errors).toHaveLength(throttles);
    for (const error of errors) {
      expect(error).toMatchObject({ status: 429, outcome: 'rate_limited_backoff', attempt: 1 });
      expect(error.message).toContain('Too many tokens');
    }
    const waits = events.filter((event) => event.event === 'model-rate-limit-wait');
    expect(waits.map((event) => [event.cycle, event.backoff])).toEqual(Array.from({ length: throttles }, (_, index) => [index + 1, true]));
    const firstTurnStarts = events.filter((event) => event.event === 'turn-start').filter((event) => event.step === errors[0]!.step);
    expect(firstTurnStarts.map((event) => event.attempt)).toEqual(Array.from({ length: throttles + 1 }, () => 1));

    // Usage and cost: the sum of what the simulator answered through Bedrock, priced at the
    // run's (fleet) model; a throttled call used nothing.
    const answered = requests.filter((request) => request.status === 200 && !request.abandoned && request.usage).map((request) => usageFromApi(request.usage as ApiUsage));
    expect(answered.length).toBe(requests.length - throttles);
    expect(run.usage).toEqual(answered.reduce(addUsage, { ...EMPTY_USAGE }));
    expect(run.usage.output_tokens).toBeGreaterThan(0);
    const price = lookupModelPrice({ model: run.model, overrides: {} }).price;
    expect(run.costMicroUsd).toBe(answered.reduce((sum, usage) => sum + costMicroUsd({ usage, price }), 0));
    expect(run.costMicroUsd).toBeGreaterThan(0);
  }, 120_000);

  it('refuses provider bedrock to a tenant whose policy allows only vertex (403 provider_not_allowed), and gives its unnamed runs vertex', async () => {
    const tenant = 'vertex-only';
    const policy = await callApi('PUT', `/v1/admin/tenants/${tenant}/policy`, { allowedProviders: ['vertex'] });
    expect(policy.status).toBe(200);
    const { token } = await new ApiKeyStore({ redis: harness.fleet.redis, keys: harness.fleet.store.keys }).create({ tenant, scopes: ['runs:read', 'runs:write'] });

    const refused = await callApi('POST', '/v1/runs', { prompt: 'Build a small bakery website.', provider: 'bedrock' }, token);
    expect(refused.status).toBe(403);
    expect(refused.json.error.code).toBe('provider_not_allowed');
    expect(refused.json.error.message).toContain('vertex');
    expect((await callApi('GET', '/v1/runs', undefined, token)).json.runs).toEqual([]);

    // BUILDFLEET_PROVIDER (bedrock) is not on its list: a run naming none gets the first listed.
    const run = await buildThroughApi({}, token);
    expect(run.provider).toBe('vertex');
    expect(run.status).toBe('succeeded');
    const requests = requestsOf(run.id);
    expect(requests.length).toBeGreaterThan(3);
    expect(requests.every((request) => request.path.endsWith(':streamRawPredict'))).toBe(true);
  }, 120_000);
});
