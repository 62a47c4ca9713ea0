// /metrics after scripted scenarios, and a canary secret that must never surface in logs,
// run events or anything stored in Redis.
import { Writable } from 'node:stream';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newRunId } from '../../src/engine/index.js';
import { FleetMetrics } from '../../src/fleet/fleet-metrics.js';
import { registerSecretsFromEnvironment } from '../../src/telemetry/redact-secrets.js';
import { createLogger } from '../../src/telemetry/logger.js';
import { startInProcessFleet, type InProcessFleet } from '../support/in-process-fleet.js';

const CANARY = 'canary-5e1f0a9d7c3b2e41';
const logLines: string[] = [];
let harness: InProcessFleet;

beforeAll(async () => {
  process.env.BUILDFLEET_TEST_CANARY_TOKEN = CANARY;
  registerSecretsFromEnvironment(process.env);
  const destination = new Writable({
    write(chunk: Buffer, _encoding, done) {
      logLines.push(chunk.toString('utf8'));
      done();
    },
  });
  harness = await startInProcessFleet({
    label: 'metrics',
    // Strict tools off: the text_tool_calls scenario below must write its calls as text, which
    // the simulator never does for a strict tool.
    env: { BUILDFLEET_RETRY_BASE_MS: '20', BUILDFLEET_STRICT_TOOLS: 'false' },
    metrics: new FleetMetrics({ role: 'test', defaultMetrics: false }),
    logger: createLogger({ level: 'debug', role: 'test', destination: destination as unknown as pino.DestinationStream }),
  });
});
afterAll(async () => {
  await harness?.close();
  delete process.env.BUILDFLEET_TEST_CANARY_TOKEN;
});

function sample(body: string, name: string, labels: Record<string, string> = {}): number {
  let total = 0;
  for (const line of body.split('\n')) {
    if (!line.startsWith(`${name}{`) && !line.startsWith(`${name} `)) continue;
    if (!Object.entries(labels).every(([key, value]) => line.includes(`${key}="${value}"`))) continue;
    total += Number(line.slice(line.lastIndexOf(' ') + 1));
  }
  return total;
}

describe('/metrics', () => {
  it('moves the counters the scripted scenarios should move', async () => {
    const happy = await harness.submit({});
    const textCalls = await harness.submit({ options: { scenario: 'text_tool_calls' } });
    const overloadedId = newRunId();
    harness.simulator.faults.add({ kind: 'overloaded', runId: overloadedId, count: 2 });
    await harness.submit({ runId: overloadedId });
    const refused = await harness.submit({ options: { scenario: 'refusal' } });
    for (const id of [happy.id, textCalls.id, overloadedId, refused.id]) await harness.waitForRun(id);

    const response = await fetch(`${harness.apiUrl}/metrics`, { headers: { authorization: `Bearer ${harness.apiKey}` } });
    expect(response.status).toBe(200);
    const body = await response.text();
    expect(sample(body, 'buildfleet_runs_ended_total', { status: 'succeeded', agent: 'site-builder' })).toBe(3);
    expect(sample(body, 'buildfleet_runs_ended_total', { status: 'refused' })).toBe(1);
    expect(sample(body, 'buildfleet_turns_total', { stop_reason: 'tool_use', tool_count: '13', agent: 'site-builder' })).toBeGreaterThan(6);
    expect(sample(body, 'buildfleet_turns_total', { stop_reason: 'refusal' })).toBe(1);
    expect(sample(body, 'buildfleet_recoveries_total')).toBeGreaterThanOrEqual(1);
    expect(sample(body, 'buildfleet_json_in_text_total')).toBeGreaterThanOrEqual(1);
    expect(sample(body, 'buildfleet_model_retries_total', { class: 'overloaded' })).toBe(2);
    expect(sample(body, 'buildfleet_tool_calls_total', { tool: 'write_file', parse_mode: 'native', status: 'ok' })).toBeGreaterThanOrEqual(9);
    expect(sample(body, 'buildfleet_turns_expecting_tool_total')).toBeGreaterThan(sample(body, 'buildfleet_turns_with_tool_use_total') - 1);
    expect(sample(body, 'buildfleet_tokens_total', { direction: 'input' })).toBeGreaterThan(0);
    expect(sample(body, 'buildfleet_tools_per_request_count')).toBeGreaterThan(20);
    expect(body).toContain('buildfleet_queue_jobs{');
    expect(sample(body, 'buildfleet_http_requests_total')).toBeGreaterThanOrEqual(0);
  });

  it('counts every run end once, cancelled and bounded ones included', async () => {
    const metricsBody = async () => (await fetch(`${harness.apiUrl}/metrics`, { headers: { authorization: `Bearer ${harness.apiKey}` } })).text();
    const before = await metricsBody();
    const waiting = await harness.waitForRun((await harness.submit({ options: { scenario: 'ask_user' } })).id);
    expect(waiting.status).toBe('waiting_for_input');
    // Cancelled twice through the API: one end, the second answers 409.
    const cancel = () => fetch(`${harness.apiUrl}/v1/runs/${waiting.id}/cancel`, { method: 'POST', headers: { authorization: `Bearer ${harness.apiKey}` } });
    expect((await cancel()).status).toBe(202);
    expect((await cancel()).status).toBe(409);
    const bounded = await harness.waitForRun((await harness.submit({ maxTurns: 1 })).id);
    expect(bounded.error?.code).toBe('max_turns_exceeded');

    const after = await metricsBody();
    const delta = (labels: Record<string, string>) => sample(after, 'buildfleet_runs_ended_total', labels) - sample(before, 'buildfleet_runs_ended_total', labels);
    expect(delta({ status: 'cancelled', error_code: 'cancelled' })).toBe(1);
    expect(delta({ status: 'failed', error_code: 'max_turns_exceeded' })).toBe(1);
    expect(delta({})).toBe(2);
  });
});

describe('secrets', () => {
  it('never lets a canary from the environment, a request or a tool error reach logs, events or Redis', async () => {
    // A run that waits for input stays live, so a tool job for it still runs.
    const run = await harness.waitForRun((await harness.submit({ options: { scenario: 'ask_user' } })).id);
    expect(run.status).toBe('waiting_for_input');
    // A request carrying the canary in a header and in the URL.
    await fetch(`${harness.apiUrl}/v1/runs/${run.id}?token=${CANARY}`, { headers: { authorization: `Bearer ${CANARY}`, 'x-api-key': CANARY } });
    // A tool whose result names the canary (the URL it fetched, which answers 404).
    await harness.fleet.queues.own.tool.add('fetch_url_live', {
      runId: run.id,
      turn: 99,
      toolUseId: 'toolu_canary',
      name: 'fetch_url_live',
      input: { url: `${harness.sitesUrl}/sites/run_missing0000/?key=${CANARY}` },
      parseMode: 'native',
      trace: {},
    }, { jobId: 'canary-input' });
    for (let attempt = 0; attempt < 100 && !(await harness.fleet.store.getStoredToolResult(run.id, 'toolu_canary')); attempt += 1) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    const result = await harness.fleet.store.getStoredToolResult(run.id, 'toolu_canary');
    expect(result?.content, result?.content).toContain("[redacted]");

    expect(logLines.filter((line) => line.includes(CANARY))).toEqual([]);
    expect(logLines.length).toBeGreaterThan(10);
    const redis = harness.fleet.redis;
    const prefix = harness.config.BUILDFLEET_PREFIX;
    for (const pattern of [`${prefix}:*`, `{${prefix}}:*`]) {
      let cursor = '0';
      do {
        const [next, keys] = await redis.scan(cursor, 'MATCH', pattern, 'COUNT', 500);
        cursor = next;
        for (const key of keys) {
          // The one job hash this test wrote itself holds the canary as its input, on purpose.
          if (key.endsWith(':tool:canary-input')) continue;
          // Read by type rather than DUMP: DUMP compresses long strings, which would hide a hit.
          const type = await redis.type(key);
          const values =
            type === 'string' ? [await redis.get(key)]
            : type === 'hash' ? Object.entries(await redis.hgetall(key)).flat()
            : type === 'list' ? await redis.lrange(key, 0, -1)
            : type === 'set' ? await redis.smembers(key)
            : type === 'zset' ? await redis.zrange(key, 0, -1)
            : type === 'stream' ? (await redis.xrange(key, '-', '+')).flatMap(([, fields]) => fields)
            : [];
          expect(values.some((value) => value?.includes(CANARY)), `key ${key}`).toBe(false);
        }
      } while (cursor !== '0');
    }
  });
});
