// Webhook delivery through the real queue, Redis and a real loopback receiver (docs/webhooks.md):
// a run's end and its question are posted once, signed as documented; a 500 is retried and both
// attempts are in the run's events; a 410 is final; URLs the SSRF guard refuses are refused at submit.
import { createHmac, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startInProcessFleet, type InProcessFleet } from '../support/in-process-fleet.js';

interface Received {
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
}

const FLEET_SECRET = 'test-webhook-fleet-secret-0123456789abcdef';
let harness: InProcessFleet;
let receiver: Server;
let receiverOrigin: string;
const received: Received[] = [];
/** Statuses each path answers in turn; the last one repeats. */
const answers: Record<string, number[]> = {};

beforeAll(async () => {
  receiver = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const path = request.url ?? '/';
      received.push({ path, headers: request.headers, body: Buffer.concat(chunks).toString('utf8') });
      const script = answers[path] ?? [200];
      const status = script.length > 1 ? script.shift()! : script[0]!;
      response.writeHead(status, { 'content-type': 'text/plain' }).end(status === 200 ? 'ok' : `answer ${status}`);
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  receiverOrigin = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
  harness = await startInProcessFleet({
    label: 'webhooks',
    env: {
      BUILDFLEET_WEBHOOK_SECRET: FLEET_SECRET,
      // The loopback receiver is the operator's exception, as a development receiver would be.
      BUILDFLEET_WEBHOOK_ALLOWLIST: receiverOrigin,
      BUILDFLEET_WEBHOOK_ATTEMPTS: '4',
      BUILDFLEET_WEBHOOK_BACKOFF_MS: '50',
    },
  });
});

afterAll(async () => {
  await harness?.close();
  await new Promise((resolve) => receiver?.close(resolve));
});

async function api(path: string, init: { method?: string; body?: unknown } = {}): Promise<{ status: number; body: any }> {
  const response = await fetch(`${harness.apiUrl}${path}`, {
    method: init.method ?? 'GET',
    headers: { authorization: `Bearer ${harness.apiKey}`, ...(init.body ? { 'content-type': 'application/json' } : {}) },
    ...(init.body ? { body: JSON.stringify(init.body) } : {}),
  });
  return { status: response.status, body: await response.json() };
}

async function submitWithWebhook(path: string, options: Record<string, unknown> = {}): Promise<string> {
  const created = await api('/v1/runs', { method: 'POST', body: { prompt: 'Build a small bakery website.', options, webhook: { url: `${receiverOrigin}${path}` } } });
  expect(created.status).toBe(202);
  return created.body.id as string;
}

async function waitFor<T>(what: string, probe: () => Promise<T | undefined> | T | undefined, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

const webhookEvents = async (runId: string) => (await harness.fleet.store.readEvents(runId)).filter((event) => event.event === 'webhook-deliver' || event.event === 'webhook-fail');
const deliveriesTo = (path: string) => received.filter((entry) => entry.path === path);

/** The documented verification (docs/webhooks.md#verifying-a-delivery), written out as a receiver would. */
function verify(secret: string, delivery: Received): boolean {
  const timestamp = String(delivery.headers['buildfleet-webhook-timestamp']);
  const expected = `v1=${createHmac('sha256', secret).update(`${timestamp}.${delivery.body}`).digest('hex')}`;
  const given = String(delivery.headers['buildfleet-webhook-signature']);
  return given.length === expected.length && timingSafeEqual(Buffer.from(given), Buffer.from(expected)) && Math.abs(Date.now() / 1000 - Number(timestamp)) <= 300;
}

describe('webhook deliveries', () => {
  it('posts run.ended once when a build ends, signed with the tenant secret, timestamp fresh', async () => {
    const runId = await submitWithWebhook('/ended');
    await harness.waitForRun(runId, 60_000);
    const events = await waitFor('the delivery to be recorded', async () => {
      const found = await webhookEvents(runId);
      return found.some((event) => event.event === 'webhook-deliver') ? found : undefined;
    });
    expect(events.map((event) => event.event)).toEqual(['webhook-deliver']);
    expect(events[0]).toMatchObject({ webhook_event: 'run.ended', status: 200, attempt: 1 });

    const deliveries = deliveriesTo('/ended');
    expect(deliveries).toHaveLength(1);
    const [delivery] = deliveries;
    const payload = JSON.parse(delivery!.body);
    const run = await harness.fleet.store.getRun(runId);
    expect(payload).toMatchObject({ event: 'run.ended', runId, tenant: 'default', status: 'succeeded', error: null, result: run!.result, question: null, createdAt: run!.createdAt });
    expect(payload.costUsd).toBeGreaterThan(0);
    expect(delivery!.headers['buildfleet-webhook-id']).toBe(payload.id);
    expect(delivery!.headers['content-type']).toBe('application/json');

    const { status, body: secret } = await api('/v1/webhooks/signing-secret');
    expect(status).toBe(200);
    expect(secret.secret).toMatch(/^whsec_[0-9a-f]{64}$/);
    expect(verify(secret.secret, delivery!)).toBe(true);
    // A tampered body, or another tenant's secret, does not verify.
    expect(verify(secret.secret, { ...delivery!, body: delivery!.body.replace('succeeded', 'failed') })).toBe(false);
    expect(verify(`${secret.secret}0`, delivery!)).toBe(false);

    // The end recorded the delivery as owed (docs/webhooks.md#guarantee) and this process's enqueue
    // settled it: the sweep (60 s away) has nothing left to enqueue for this run.
    expect(await harness.fleet.redis.zscore(harness.fleet.store.keys.owedWebhooks(), runId)).not.toBeNull();
    await waitFor('the owed delivery to be settled', async () => ((await harness.fleet.store.readOwedWebhook(runId))?.owed === null ? true : undefined));

    // The same end enqueued again (an end reported twice) is the same delivery: nothing more is posted.
    await harness.fleet.queues.own.enqueueWebhook({ runId, turn: run!.turn, url: `${receiverOrigin}/ended`, payload }, { attempts: 4, backoffMs: 50 });
    expect(await harness.fleet.queues.own.webhook.getJobState(payload.id)).toBe('completed');
    expect(deliveriesTo('/ended')).toHaveLength(1);
  });

  it('retries a 500 and records both attempts in the run events', async () => {
    answers['/flaky'] = [500, 200];
    const runId = await submitWithWebhook('/flaky');
    await harness.waitForRun(runId, 60_000);
    const events = await waitFor('the retried delivery', async () => {
      const found = await webhookEvents(runId);
      return found.some((event) => event.event === 'webhook-deliver') ? found : undefined;
    });
    expect(events.map((event) => [event.event, event.status, event.attempt])).toEqual([
      ['webhook-fail', 500, 1],
      ['webhook-deliver', 200, 2],
    ]);
    expect(events[0]).toMatchObject({ final: false, reason: 'http_500', response_excerpt: 'answer 500' });
    const deliveries = deliveriesTo('/flaky');
    expect(deliveries).toHaveLength(2);
    // Every attempt posts the same payload under the same id.
    expect(deliveries[1]!.body).toBe(deliveries[0]!.body);
    expect(deliveries[1]!.headers['buildfleet-webhook-id']).toBe(deliveries[0]!.headers['buildfleet-webhook-id']);
    // Each attempt is signed when it is sent, with its own timestamp (a retry after the receiver's
    // 5-minute tolerance must still verify): both verify with the tenant's secret, and the retry's
    // timestamp is not older than the first's. Backoff is 50 ms here, so the two may share a second.
    const { body: secret } = await api('/v1/webhooks/signing-secret');
    for (const delivery of deliveries) expect(verify(secret.secret, delivery)).toBe(true);
    const [first, retried] = deliveries.map((delivery) => Number(delivery.headers['buildfleet-webhook-timestamp']));
    expect(Number.isInteger(first) && Number.isInteger(retried)).toBe(true);
    expect(retried).toBeGreaterThanOrEqual(first!);
    // A signature is bound to its timestamp: the first attempt's signature does not verify under the
    // retried attempt's headers unless the two were signed in the same second.
    if (retried !== first) expect(deliveries[1]!.headers['buildfleet-webhook-signature']).not.toBe(deliveries[0]!.headers['buildfleet-webhook-signature']);
  });

  it('posts run.waiting_for_input with the question when a run asks one', async () => {
    const runId = await submitWithWebhook('/question', { scenario: 'ask_user' });
    const waiting = await harness.waitForRun(runId, 60_000);
    expect(waiting.status).toBe('waiting_for_input');
    const delivery = await waitFor('the question delivery', () => deliveriesTo('/question')[0]);
    expect(JSON.parse(delivery.body)).toMatchObject({ event: 'run.waiting_for_input', runId, status: 'waiting_for_input', question: waiting.question!.question });
  });

  it('does not retry a 410: the delivery fails for good after one attempt', async () => {
    answers['/gone'] = [410];
    const runId = await submitWithWebhook('/gone');
    await harness.waitForRun(runId, 60_000);
    const events = await waitFor('the failed delivery', async () => {
      const found = await webhookEvents(runId);
      return found.length > 0 ? found : undefined;
    });
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ event: 'webhook-fail', status: 410, attempt: 1, final: true, reason: 'http_410' });
    const deliveryId = String(events[0]!.delivery_id);
    await waitFor('the job to fail', async () => ((await harness.fleet.queues.own.webhook.getJobState(deliveryId)) === 'failed' ? true : undefined));
    expect(deliveriesTo('/gone')).toHaveLength(1);
  });
});

describe('webhook URLs refused at submit', () => {
  const submit = (url: string) => api('/v1/runs', { method: 'POST', body: { prompt: 'Build a site.', webhook: { url } } });

  it('refuses the cloud metadata address', async () => {
    const answer = await submit('https://169.254.169.254/latest/meta-data');
    expect(answer.status).toBe(422);
    expect(answer.body.error.code).toBe('webhook_url_blocked');
    expect(answer.body.error.message).toContain('link-local');
  });

  it('refuses loopback off the allowlist, over https and over http', async () => {
    const https = await submit('https://127.0.0.1:9/hook');
    expect(https.status).toBe(422);
    expect(https.body.error.code).toBe('webhook_url_blocked');
    const http = await submit('http://127.0.0.1:9/hook');
    expect(http.status).toBe(400);
    expect(http.body.error.code).toBe('webhook_url_invalid');
    const localhost = await submit('https://localhost/hook');
    expect(localhost.body.error.code).toBe('webhook_url_blocked');
  });

  it('refuses credentials in the URL', async () => {
    const answer = await submit('https://user:pass@example.com/hook');
    expect(answer.status).toBe(400);
    expect(answer.body.error.code).toBe('webhook_url_invalid');
  });
});
