// The enqueue of webhook deliveries as runs end or park for input (docs/webhooks.md): every
// process that can end or park a run wires it (src/fleet/fleet-context.ts: the API cancels, model
// workers end and park most runs, the reaper ends stalled ones); the tool workers deliver. The
// payload is taken from the run record right after the event, so it says what the run was then,
// whenever the delivery is attempted. This is the fast path for ends: the end itself recorded the
// delivery as owed (docs/webhooks.md#guarantee), and the webhook sweep enqueues what a crash or a
// Redis error here lost. A question's delivery has no such record yet.
import type { WorkerFleet } from './worker-fleet.js';
import type { RunPark } from '../engine/index.js';
import { jobIds } from '../jobs/job-catalog.js';
import { webhookPayloadOf } from '../webhooks/webhook-payload-of.js';
import { enqueueOwedWebhook } from './enqueue-owed-webhook.js';

type EnqueueFleet = Pick<WorkerFleet, 'store' | 'queues' | 'logger' | 'config'>;

/** Observes this process's engine: each run end, and each question a run parks on, of a run that
 * names a webhook becomes one delivery job. A lost enqueue of an end (Redis refused it) is logged
 * and left to the webhook sweep; a lost question's is only logged. Runs without a webhook cost
 * nothing here (the end says whether one is owed). */
export function enqueueWebhooksOnRunEvents(fleet: EnqueueFleet): void {
  const report = (runId: string, after: string) => (error: unknown) =>
    fleet.logger.warn({ run_id: runId, err: error instanceof Error ? error.message : String(error) }, `webhook delivery not enqueued${after}`);
  fleet.store.observeRunEnds((end) => {
    if (end.webhookOwed) void enqueueOwedWebhook(fleet, end.runId).catch(report(end.runId, '; the webhook sweep enqueues it'));
  });
  fleet.store.observeParks((park) => void enqueueRunWaiting(fleet, park).catch(report(park.runId, '')));
}

function retryOf(config: EnqueueFleet['config']) {
  return { attempts: config.BUILDFLEET_WEBHOOK_ATTEMPTS, backoffMs: config.BUILDFLEET_WEBHOOK_BACKOFF_MS };
}

async function enqueueRunWaiting(fleet: EnqueueFleet, park: RunPark): Promise<void> {
  const run = await fleet.store.getRun(park.runId);
  if (!run?.webhook) return;
  const deliveryId = jobIds.webhookWaitingForInput(run.id, park.toolUseId);
  const payload = webhookPayloadOf({ run: { ...run, status: 'waiting_for_input' }, event: 'run.waiting_for_input', deliveryId, question: park.question });
  await fleet.queues.of(run.queueShard).enqueueWebhook({ runId: run.id, turn: park.turn, url: run.webhook.url, payload }, retryOf(fleet.config));
}
