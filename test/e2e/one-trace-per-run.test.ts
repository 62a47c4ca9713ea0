// One trace per run across separate API, model-worker and tool-worker processes, exported over
// OTLP/HTTP to a receiver on loopback, with the GenAI attributes on model and tool spans.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiClient } from '../../src/cli/api-client.js';
import { startDevFleet, type DevFleet } from '../../src/cli/dev-fleet.js';
import { connectTestRedis, deletePrefix, testRedisUrl, uniquePrefix } from '../support/redis.js';
import { startOtlpReceiver, type ReceivedSpan } from '../support/otlp-receiver.js';

const prefix = uniquePrefix('traces');
let fleet: DevFleet | undefined;
let receiver: Awaited<ReturnType<typeof startOtlpReceiver>>;

beforeAll(async () => {
  receiver = await startOtlpReceiver();
  fleet = await startDevFleet({
    env: {
      REDIS_URL: testRedisUrl(),
      BUILDFLEET_PREFIX: prefix,
      LOG_LEVEL: 'info',
      ANTHROPIC_API_KEY: '',
      ANTHROPIC_BASE_URL: '',
      OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
    },
    writeStateFile: false,
  });
}, 60_000);

afterAll(async () => {
  await fleet?.stop();
  await receiver?.close();
  const redis = connectTestRedis();
  await deletePrefix(redis, prefix);
  redis.disconnect();
});

describe('tracing', () => {
  it('puts every span of a run in one trace, from the API through both kinds of worker', async () => {
    const client = new ApiClient(fleet!.apiUrl, (fleet as DevFleet & { apiKey?: string }).apiKey);
    const created = await client.request<{ id: string }>('POST', '/v1/runs', { prompt: 'Build a site.' });
    let view: { status: string; traceId: string | null } = { status: 'queued', traceId: null };
    for (let attempt = 0; attempt < 300 && view.status !== 'succeeded'; attempt += 1) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      view = await client.request('GET', `/v1/runs/${created.id}`);
    }
    expect(view.status).toBe('succeeded');
    expect(view.traceId).toMatch(/^[0-9a-f]{32}$/);
    // SIGTERM flushes every process's batched spans.
    await fleet!.stop();
    fleet = undefined;

    const ofRun = receiver.spans.filter((span) => span.traceId === view.traceId);
    const services = new Set(ofRun.map((span) => span.service));
    expect([...services].sort()).toEqual(['buildfleet-api', 'buildfleet-model-worker', 'buildfleet-tool-worker']);
    const tagged = receiver.spans.filter((span) => span.attributes['buildfleet.run.id'] === created.id);
    expect(tagged.length).toBeGreaterThan(10);
    expect(new Set(tagged.map((span) => span.traceId))).toEqual(new Set([view.traceId]));

    const chats = ofRun.filter((span) => span.name.startsWith('chat '));
    expect(chats.length).toBeGreaterThan(5);
    for (const chat of chats) {
      expect(chat.attributes).toMatchObject({ 'gen_ai.operation.name': 'chat', 'gen_ai.provider.name': 'anthropic' });
      expect(chat.attributes['gen_ai.request.model']).toBeTypeOf('string');
      expect(chat.attributes['gen_ai.usage.input_tokens']).toBeGreaterThan(0);
      expect(chat.attributes['gen_ai.response.finish_reasons']).toBeInstanceOf(Array);
      // The API's request-id, for support requests about one call.
      expect(String(chat.attributes['buildfleet.model.request_id'])).toMatch(/^req_/);
    }
    const tools: ReceivedSpan[] = ofRun.filter((span) => span.name.startsWith('execute_tool '));
    expect(tools.map((span) => span.attributes['gen_ai.tool.name'])).toEqual(expect.arrayContaining(['todo_write', 'write_file', 'deploy', 'publish']));
    for (const tool of tools) {
      expect(tool.attributes['gen_ai.operation.name']).toBe('execute_tool');
      expect(String(tool.attributes['gen_ai.tool.call.id'])).toMatch(/^(toolu_|synthetic_)/);
      // A tool call hangs off the model turn that made it.
      expect(ofRun.find((span) => span.spanId === tool.parentSpanId)?.name).toBe('model_turn');
    }
    const root = ofRun.find((span) => span.name === 'create_run');
    expect(root?.parentSpanId ?? '').toBe('');
  }, 120_000);
});
