// DNS rebinding against webhook delivery (docs/webhooks.md#which-urls-are-accepted): a receiver's
// name that resolves to a public address when the URL is checked at submit, and to a loopback one
// when the delivery connects, must not reach loopback. Driven through deliverWebhookJob with a real
// run engine on Redis (the attempt's event) and a loopback TCP listener standing in for whatever
// the attacker points the name at: it must see no connection at all.
import { createServer, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import type { RedisClient } from '../../src/redis/redis-connection.js';
import pino from 'pino';
import { UnrecoverableError } from 'bullmq';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig, type Config } from '../../src/config.js';
import { createKeySpace, RunEngine } from '../../src/engine/index.js';
import { jobIds, type WebhookJobData } from '../../src/jobs/job-catalog.js';
import type { HostResolver } from '../../src/safety/ssrf-guard.js';
import { checkWebhookUrl } from '../../src/webhooks/webhook-url-policy.js';
import { webhookPayloadOf } from '../../src/webhooks/webhook-payload-of.js';
import { deliverWebhookJob } from '../../src/workers/webhook-worker.js';
import { connectTestRedis, deletePrefix, uniquePrefix } from '../support/redis.js';

const prefix = uniquePrefix('whrebind');
const PUBLIC_ADDRESS = '1.1.1.1';
let redis: RedisClient;
let store: RunEngine;
let config: Config;
let listener: Server;
let port: number;
const connections: Socket[] = [];

beforeAll(async () => {
  redis = connectTestRedis();
  store = new RunEngine(redis, createKeySpace(prefix));
  // Whatever connects to loopback on this port is counted; nothing should.
  listener = createServer((socket) => {
    connections.push(socket);
    socket.destroy();
  });
  await new Promise<void>((resolve) => listener.listen(0, '127.0.0.1', resolve));
  port = (listener.address() as AddressInfo).port;
  config = loadConfig({ BUILDFLEET_WEBHOOK_SECRET: 'test-webhook-fleet-secret-0123456789abcdef', BUILDFLEET_WEBHOOK_TIMEOUT_MS: '1500', LOG_LEVEL: 'silent' });
});

afterAll(async () => {
  await deletePrefix(redis, prefix);
  redis?.disconnect();
  await new Promise((resolve) => listener?.close(resolve));
});

/** A resolver that answers the public address first and loopback from then on, counting calls. */
function rebindingResolver(): { resolve: HostResolver; calls: string[] } {
  const calls: string[] = [];
  return {
    calls,
    resolve: async (hostname) => {
      calls.push(hostname);
      return [{ address: calls.length === 1 ? PUBLIC_ADDRESS : '127.0.0.1', family: 4 }];
    },
  };
}

async function deliveryJob(url: string): Promise<{ runId: string; job: { data: WebhookJobData; attemptsMade: number; opts: { attempts: number }; id: string } }> {
  const run = await store.createRun({ tenant: 'acme', prompt: 'Build a site.', model: 'claude-sonnet-4-5', maxTurns: 5, maxTokens: 1024, options: {}, webhook: { url } });
  const deliveryId = jobIds.webhookEnded(run.id, Date.parse(run.updatedAt));
  const payload = webhookPayloadOf({ run: { ...run, status: 'succeeded' }, event: 'run.ended', deliveryId });
  return { runId: run.id, job: { data: { runId: run.id, turn: 0, url, payload }, attemptsMade: 0, opts: { attempts: 3 }, id: deliveryId } };
}

const fleetOf = () => ({ config, store, logger: pino({ level: 'silent' }) });
const webhookEvents = async (runId: string) => (await store.readEvents(runId)).filter((event) => event.event === 'webhook-deliver' || event.event === 'webhook-fail');

describe('a webhook host that rebinds to loopback after the submit check', () => {
  it('is refused at delivery, recorded as a final failed attempt, and nothing is sent', async () => {
    const url = `https://hooks.rebinding.test:${port}/deliveries`;
    const dns = rebindingResolver();
    // Submit: the name resolves to a public address, so the URL is accepted.
    await expect(checkWebhookUrl({ url, allowlist: '', resolve: dns.resolve })).resolves.toMatchObject({ trusted: false });
    const { runId, job } = await deliveryJob(url);

    // Delivery: the same name now answers loopback.
    const attempt = deliverWebhookJob(fleetOf(), job, { resolve: dns.resolve });
    await expect(attempt).rejects.toBeInstanceOf(UnrecoverableError);
    await expect(attempt).rejects.toThrow(/url_blocked: .*127\.0\.0\.1/);
    expect(dns.calls).toEqual(['hooks.rebinding.test', 'hooks.rebinding.test']);
    expect(connections).toHaveLength(0);
    const events = await webhookEvents(runId);
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ event: 'webhook-fail', status: null, final: true, attempt: 1, webhook_event: 'run.ended', delivery_id: job.id });
    expect(events[0]).toMatchObject({ reason: expect.stringMatching(/^url_blocked: .*127\.0\.0\.1/) });
  });

  it('resolves the name once per attempt and connects to the address it checked', async () => {
    const url = `https://hooks.rebinding.test:${port}/once`;
    const dns = rebindingResolver();
    const { runId, job } = await deliveryJob(url);
    // The attempt's one resolution answers the public address; a second one (a connection that
    // resolved the name again after the check) would answer loopback, where the listener waits.
    const attempt = deliverWebhookJob(fleetOf(), job, { resolve: dns.resolve });
    // The public address is not a receiver here: no answer (unreachable, or the timeout), retried.
    await expect(attempt).rejects.not.toBeInstanceOf(UnrecoverableError);
    expect(dns.calls).toEqual(['hooks.rebinding.test']);
    expect(connections).toHaveLength(0);
    const events = await webhookEvents(runId);
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ event: 'webhook-fail', status: null, final: false });
    expect(events[0]).toMatchObject({ reason: expect.stringMatching(/^(network|timeout)/) });
  });

  it('refuses a name that answers a public and a loopback address at once', async () => {
    const url = `https://hooks.rebinding.test:${port}/mixed`;
    const { runId, job } = await deliveryJob(url);
    const resolve: HostResolver = async () => [
      { address: PUBLIC_ADDRESS, family: 4 },
      { address: '127.0.0.1', family: 4 },
    ];
    await expect(deliverWebhookJob(fleetOf(), job, { resolve })).rejects.toBeInstanceOf(UnrecoverableError);
    expect(connections).toHaveLength(0);
    expect((await webhookEvents(runId))[0]).toMatchObject({ event: 'webhook-fail', final: true });
  });
});
