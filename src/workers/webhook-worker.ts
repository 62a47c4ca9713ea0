// The webhook worker (docs/webhooks.md): takes one `webhook` job per delivery, signs its payload
// with the run's tenant's secret and posts it (src/webhooks/post-webhook.ts: through the SSRF
// guard, bounded, no redirects). Each attempt is recorded in the run's events — `webhook-deliver`
// or `webhook-fail` with its status, attempt and whether it was the last — and its outcome
// (webhook-attempt-outcome.ts) becomes BullMQ's: a thrown error is retried with exponential
// backoff, UnrecoverableError ends the delivery. It runs in the tool worker processes, the role
// whose network egress is already the SSRF guard's (src/fleet/start-roles.ts).
import { UnrecoverableError, Worker, type Job } from 'bullmq';
import { shardRole, type WorkerFleet } from './worker-fleet.js';
import { redisTargetOf } from '../domain/redis-target.js';
import { connectRedis, workerIdentity } from '../redis/redis-connection.js';
import { WEBHOOK_QUEUE_NAME, webhookJobSchema, type WebhookJobData } from '../jobs/job-catalog.js';
import type { HostResolver } from '../safety/ssrf-guard.js';
import { postWebhook } from '../webhooks/post-webhook.js';
import { webhookAttemptOutcome, type WebhookAttemptOutcome } from '../webhooks/webhook-attempt-outcome.js';
import { webhookSigningSecret } from '../webhooks/webhook-signature.js';
import type { RunEventDraftOf } from '../domain/run-events.js';

/** An attempt's event less the fields every attempt's event carries (filled in by deliverWebhookJob). */
type AttemptDraft<Name extends 'webhook-deliver' | 'webhook-fail'> = Omit<RunEventDraftOf<Name>, 'webhook_event' | 'delivery_id' | 'attempt' | 'attempts'>;

export interface WebhookWorkerOptions {
  /** Deliveries at once (default 8: each is one short request, mostly waiting on the network). */
  concurrency?: number;
  /** DNS for receivers off the allowlist (default: the system resolver); tests script answers here. */
  resolve?: HostResolver;
  /** Told of every attempt's outcome (metrics). */
  onAttempt?: (outcome: WebhookAttemptOutcome) => void;
}

/** One attempt of one delivery; returns when delivered, throws to retry or (UnrecoverableError) to stop. */
export async function deliverWebhookJob(
  fleet: Pick<WorkerFleet, 'config' | 'store' | 'logger'>,
  job: Pick<Job<WebhookJobData>, 'data' | 'attemptsMade' | 'opts' | 'id'>,
  options: Pick<WebhookWorkerOptions, 'resolve' | 'onAttempt'> = {},
): Promise<{ status: number }> {
  const data = webhookJobSchema.parse(job.data);
  const { payload } = data;
  const attempt = job.attemptsMade + 1;
  const attempts = job.opts.attempts ?? 1;
  const record = async (draft: AttemptDraft<'webhook-deliver'> | AttemptDraft<'webhook-fail'>) => {
    // After the POST: a failure to record must not turn a delivered attempt into a retry (which
    // would post it again), so it is logged, not thrown.
    await fleet.store
      .appendEventIfRunExists({ run_id: data.runId, step: data.turn, webhook_event: payload.event, delivery_id: payload.id, attempt, attempts, ...draft })
      .catch((error: unknown) =>
        fleet.logger.warn(
          { run_id: data.runId, delivery_id: payload.id, err: error instanceof Error ? error.message : String(error) },
          'webhook attempt not recorded in the run events',
        ),
      );
  };
  const fleetSecret = fleet.config.BUILDFLEET_WEBHOOK_SECRET;
  if (!fleetSecret) {
    // Submit refuses webhooks without a secret; a job made before the secret was removed cannot be
    // signed, and an unsigned delivery is one no receiver should trust.
    await record({ event: 'webhook-fail', status: null, reason: 'webhooks_not_configured: BUILDFLEET_WEBHOOK_SECRET is unset', final: true });
    throw new UnrecoverableError('BUILDFLEET_WEBHOOK_SECRET is unset: the delivery cannot be signed');
  }
  const answer = await postWebhook({
    url: data.url,
    body: JSON.stringify(payload),
    deliveryId: payload.id,
    secret: webhookSigningSecret({ fleetSecret, tenant: payload.tenant }),
    allowlist: fleet.config.BUILDFLEET_WEBHOOK_ALLOWLIST,
    timeoutMs: fleet.config.BUILDFLEET_WEBHOOK_TIMEOUT_MS,
    ...(options.resolve ? { resolve: options.resolve } : {}),
  });
  const outcome = webhookAttemptOutcome(answer);
  options.onAttempt?.(outcome);
  if (outcome.kind === 'delivered') {
    await record({ event: 'webhook-deliver', status: outcome.status });
    fleet.logger.info({ run_id: data.runId, event: 'webhook-deliver', delivery_id: payload.id, status: outcome.status, attempt }, 'webhook delivered');
    return { status: outcome.status };
  }
  const final = outcome.kind === 'final' || attempt >= attempts;
  const excerpt = 'excerpt' in answer && answer.excerpt ? { response_excerpt: answer.excerpt.slice(0, 200) } : {};
  await record({ event: 'webhook-fail', status: outcome.status, reason: outcome.reason, final, ...excerpt, level: 'warn' });
  if (outcome.kind === 'final') throw new UnrecoverableError(outcome.reason);
  throw new Error(outcome.reason);
}

export function startWebhookWorker(fleet: WorkerFleet, options: WebhookWorkerOptions = {}): Worker<WebhookJobData> {
  // BullMQ does not close a connection it was given; the worker's own one closes with it.
  const connection = connectRedis(redisTargetOf(fleet.config));
  const worker = new Worker<WebhookJobData>(WEBHOOK_QUEUE_NAME, async (job: Job<WebhookJobData>) => deliverWebhookJob(fleet, job, options), {
    connection,
    prefix: fleet.queues.own.keys.queuePrefix,
    name: workerIdentity(shardRole(fleet, 'webhook')),
    concurrency: options.concurrency ?? 8,
    lockDuration: fleet.config.BUILDFLEET_LOCK_DURATION_MS,
    stalledInterval: fleet.config.BUILDFLEET_STALLED_INTERVAL_MS,
    maxStalledCount: 3,
  });
  worker.on('error', (error) => fleet.logger.error({ err: error.message }, 'webhook worker error'));
  worker.on('failed', (job, error) => {
    if (!job) return;
    const final = error instanceof UnrecoverableError || job.attemptsMade >= (job.opts.attempts ?? 1);
    fleet.logger.warn(
      { run_id: job.data.runId, delivery_id: job.id, attempt: job.attemptsMade, final, err: error.message },
      final ? 'webhook delivery failed for good' : 'webhook attempt failed; retried',
    );
  });
  worker.on('closed', () => void (connection.status === 'ready' ? connection.quit().catch(() => connection.disconnect()) : connection.disconnect()));
  return worker;
}
