// Webhook delivery in a fleet process (docs/webhooks.md): the webhook worker, which posts each
// delivery job, and the webhook sweep, which enqueues the deliveries run ends owe when the enqueue
// at the end was lost. Both run in the tool worker processes (src/fleet/start-roles.ts), whose
// egress is the SSRF guard's already.
import type { Worker } from 'bullmq';
import type { WebhookJobData } from '../jobs/job-catalog.js';
import type { WorkerFleet } from './worker-fleet.js';
import { runWorkerWithSweep, type RunningWorkerWithSweep } from './run-worker-with-sweep.js';
import { startWebhookWorker, type WebhookWorkerOptions } from './webhook-worker.js';
import { WebhookSweeper } from './webhook-sweeper.js';

export type RunningWebhookDelivery = RunningWorkerWithSweep<Worker<WebhookJobData>, WebhookSweeper>;

export interface WebhookDeliveryOptions extends WebhookWorkerOptions {
  /** Default BUILDFLEET_WEBHOOK_SWEEP_INTERVAL_MS; 0: no sweep in this process. */
  sweepIntervalMs?: number;
}

/** Starts the webhook worker and the webhook sweep in this process. */
export function startWebhookDelivery(fleet: WorkerFleet, options: WebhookDeliveryOptions = {}): RunningWebhookDelivery {
  const { sweepIntervalMs = fleet.config.BUILDFLEET_WEBHOOK_SWEEP_INTERVAL_MS, ...workerOptions } = options;
  const worker = startWebhookWorker(fleet, workerOptions);
  // The grace is one interval: an end's own enqueue is long done by then, unless it was lost.
  const sweeper = new WebhookSweeper(fleet, { intervalMs: sweepIntervalMs, graceMs: sweepIntervalMs });
  return runWorkerWithSweep({ worker, sweeper });
}
