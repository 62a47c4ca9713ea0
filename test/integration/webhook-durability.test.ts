// The webhook of a run end is delivered even when the enqueue at the end was lost
// (docs/webhooks.md#guarantee): the process that ended the run dies before its in-process observer
// enqueues the delivery, here simulated by ending the run through an engine with no observer at all
// (or through the ending script alone, before the end's bookkeeping). The webhook sweep, started
// afterwards, enqueues the owed delivery through the real queue and a real webhook worker posts it
// to a loopback receiver exactly once; sweeping again, or after a crash between the enqueue and
// its settlement, posts nothing more.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { RedisClient } from '../../src/redis/redis-connection.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { createKeySpace, RunEngine, type CreateRunInput } from '../../src/engine/index.js';
import { createFleetContext, type FleetContext } from '../../src/fleet/fleet-context.js';
import { startWebhookDelivery, type RunningWebhookDelivery } from '../../src/workers/start-webhook-delivery.js';
import { connectTestRedis, deletePrefix, testRedisEnv, uniquePrefix } from '../support/redis.js';
import { until } from '../support/until.js';

const prefix = uniquePrefix('whdurable');
let redis: RedisClient;
/** The engine of the process that "dies": it ends runs and has no webhook observer. */
let crashedEngine: RunEngine;
let fleet: FleetContext;
let delivery: RunningWebhookDelivery;
let receiver: Server;
let receiverOrigin: string;
const received: Array<{ path: string; id: string; body: string }> = [];

beforeAll(async () => {
  receiver = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      received.push({ path: request.url ?? '/', id: String(request.headers['buildfleet-webhook-id']), body: Buffer.concat(chunks).toString('utf8') });
      response.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  receiverOrigin = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
  redis = connectTestRedis();
  crashedEngine = new RunEngine(redis, createKeySpace(prefix));
  fleet = createFleetContext(
    loadConfig({
      ...testRedisEnv(),
      BUILDFLEET_PREFIX: prefix,
      LOG_LEVEL: 'silent',
      BUILDFLEET_WEBHOOK_SECRET: 'test-webhook-fleet-secret-0123456789abcdef',
      BUILDFLEET_WEBHOOK_ALLOWLIST: receiverOrigin,
      BUILDFLEET_WEBHOOK_ATTEMPTS: '3',
      BUILDFLEET_WEBHOOK_BACKOFF_MS: '50',
    }),
    'webhook-durability',
  );
});

afterAll(async () => {
  await delivery?.close(true);
  await deletePrefix(redis, prefix);
  await fleet?.close();
  redis?.disconnect();
  await new Promise((resolve) => receiver?.close(resolve));
});

const runInput = (path: string | null): CreateRunInput => ({
  tenant: 'acme',
  prompt: 'Build a small bakery website.',
  model: 'claude-sonnet-4-5',
  maxTurns: 10,
  maxTokens: 1024,
  options: {},
  webhook: path === null ? null : { url: `${receiverOrigin}${path}` },
});

const deliveriesTo = (path: string) => received.filter((entry) => entry.path === path);
const owedIndex = () => redis.zrange(crashedEngine.keys.owedWebhooks(), 0, -1);
const webhookEvents = async (runId: string) => (await fleet.store.readEvents(runId)).filter((event) => event.event.startsWith('webhook-'));

describe('a run end whose webhook enqueue was lost', () => {
  it('is delivered exactly once by the webhook sweep', async () => {
    const run = await crashedEngine.createRun(runInput('/lost'));
    expect(await crashedEngine.endRun(run.id, 3, 'succeeded', { result: 'Built the bakery site.' })).toBe(true);

    // The end recorded what it owes, and nothing enqueued it: no observer ran.
    const owed = await crashedEngine.readOwedWebhook(run.id);
    expect(owed?.owed).toMatchObject({ status: 'succeeded', endedAt: owed!.run.updatedAt });
    expect(await owedIndex()).toEqual([run.id]);
    expect(await fleet.queues.own.webhook.getJobCountByTypes('waiting', 'active', 'delayed', 'completed', 'failed')).toBe(0);

    // The tool worker role starts: its webhook worker and sweep (grace and interval 100 ms).
    delivery = startWebhookDelivery(fleet, { sweepIntervalMs: 100 });
    await until('the owed delivery to be posted', async () => deliveriesTo('/lost').length > 0);
    await until('the delivery to be recorded', async () => (await webhookEvents(run.id)).some((event) => event.event === 'webhook-deliver'));
    await until('the owed-webhook entry to be dropped', async () => (await owedIndex()).length === 0);

    const payload = JSON.parse(deliveriesTo('/lost')[0]!.body);
    expect(payload).toMatchObject({ event: 'run.ended', runId: run.id, tenant: 'acme', status: 'succeeded', result: 'Built the bakery site.', occurredAt: owed!.run.updatedAt });
    expect(payload.id).toBe(`webhook-${run.id}-ended-${Date.parse(owed!.run.updatedAt)}`);
    expect((await crashedEngine.readOwedWebhook(run.id))?.owed).toBeNull();

    // More sweeps find nothing owed: still one post, one delivery event.
    const again = await delivery.sweeper.sweepLocked(Date.now() + 1000);
    expect(again.skipped === 'locked' || again.enqueued.length === 0).toBe(true);
    expect(deliveriesTo('/lost')).toHaveLength(1);
    expect((await webhookEvents(run.id)).map((event) => event.event)).toEqual(['webhook-deliver']);
  });

  it('is not posted twice when the process died between the enqueue and its settlement', async () => {
    const run = await crashedEngine.createRun(runInput('/settle'));
    await crashedEngine.endRun(run.id, 1, 'failed', { error: { code: 'model_error', message: 'The model answered 500 five times.' } });
    const owed = (await crashedEngine.readOwedWebhook(run.id))!.owed!;
    await until('the owed delivery to be posted', async () => deliveriesTo('/settle').length > 0);
    const deliveryId = deliveriesTo('/settle')[0]!.id;
    await until('the delivery job to complete', async () => (await fleet.queues.own.webhook.getJobState(deliveryId)) === 'completed');

    // As if the enqueue had happened and its settlement had not: the record and the entry are back.
    await redis.hset(crashedEngine.keys.run(run.id), 'webhookOwed', owed.raw);
    await redis.zadd(crashedEngine.keys.owedWebhooks(), Date.now() - 10_000, run.id);
    await until('the sweep to settle it again', async () => (await owedIndex()).length === 0 && (await crashedEngine.readOwedWebhook(run.id))?.owed === null);
    // The same end is the same delivery id: its kept job made the second enqueue a no-op.
    expect(await fleet.queues.own.webhook.getJobState(deliveryId)).toBe('completed');
    expect(deliveriesTo('/settle')).toHaveLength(1);
    expect(JSON.parse(deliveriesTo('/settle')[0]!.body)).toMatchObject({ status: 'failed', error: { code: 'model_error' } });
  });

  it('is delivered when the process died before the end’s bookkeeping (the reaper hands the run over)', async () => {
    const run = await crashedEngine.createRun(runInput('/reaped'));
    // The ending script alone: the run ended, and is still only in the live-run index.
    const fields = JSON.stringify({ status: 'cancelled', updatedAt: new Date().toISOString() });
    expect(await crashedEngine.scripts.bfEndRun(crashedEngine.keys.run(run.id), crashedEngine.keys.events(run.id), fields, 0)).toEqual(['acme', 1, 'site-builder']);
    expect(await owedIndex()).not.toContain(run.id);
    expect(await redis.zscore(crashedEngine.keys.liveRuns(), run.id)).not.toBeNull();

    await crashedEngine.handOffEndedRuns([run.id], Date.now() - 10_000);
    await until('the owed delivery to be posted', async () => deliveriesTo('/reaped').length > 0);
    await until('the owed-webhook entry to be dropped', async () => !(await owedIndex()).includes(run.id));
    expect(deliveriesTo('/reaped')).toHaveLength(1);
    expect(JSON.parse(deliveriesTo('/reaped')[0]!.body)).toMatchObject({ event: 'run.ended', status: 'cancelled' });
  });

  it('owes nothing for a run without a webhook: no record, no index entry', async () => {
    const run = await crashedEngine.createRun(runInput(null));
    expect(await crashedEngine.endRun(run.id, 1, 'succeeded', { result: 'done' })).toBe(true);
    expect(await redis.hexists(crashedEngine.keys.run(run.id), 'webhookOwed')).toBe(0);
    expect(await redis.zscore(crashedEngine.keys.owedWebhooks(), run.id)).toBeNull();
    // Handed over by the reaper it is in the index, and the sweep drops it without a delivery.
    const before = received.length;
    await crashedEngine.handOffEndedRuns([run.id], Date.now() - 10_000);
    await until('the entry of a run that owes nothing to be dropped', async () => !(await owedIndex()).includes(run.id));
    expect(received.length).toBe(before);
  });
});
