// The enqueue of webhook deliveries as runs end or park for input (docs/webhooks.md): every
// process that can end or park a run wires it (src/fleet/fleet-context.ts: the API cancels, model
// workers end and park most runs, the reaper ends stalled ones); the tool workers deliver. The
// payload is taken from the run record right after the event, so it says what the run was then,
// whenever the delivery is attempted.
import type { WorkerFleet } from './worker-fleet.js';
import type { RunEnd, RunPark } from '../engine/run-engine.js';
import { jobIds } from '../jobs/job-catalog.js';
import { webhookPayloadOf } from '../webhooks/webhook-payload-of.js';

type EnqueueFleet = Pick<WorkerFleet, 'store' | 'queues' | 'logger' | 'config'>;

/** Observes this process's engine: each run end, and each question a run parks on, of a run that
 * names a webhook becomes one delivery job. A lost enqueue (Redis refused it) is logged: the run
 * is not affected, and the receiver can read the run with GET /v1/runs/{id}. */
export function enqueueWebhooksOnRunEvents(fleet: EnqueueFleet): void {
  const report = (runId: string) => (error: unknown) =>
    fleet.logger.warn({ run_id: runId, err: error instanceof Error ? error.message : String(error) }, 'webhook delivery not enqueued');
  fleet.store.observeRunEnds((end) => void enqueueRunEnded(fleet, end).catch(report(end.runId)));
  fleet.store.observeParks((park) => void enqueueRunWaiting(fleet, park).catch(report(park.runId)));
}

function retryOf(config: EnqueueFleet['config']) {
  return { attempts: config.BUILDFLEET_WEBHOOK_ATTEMPTS, backoffMs: config.BUILDFLEET_WEBHOOK_BACKOFF_MS };
}

async function enqueueRunEnded(fleet: EnqueueFleet, end: RunEnd): Promise<void> {
  const run = await fleet.store.getRun(end.runId);
  if (!run?.webhook) return;
  // The end's own transition time names the delivery: the same end reported again is the same job,
  // the end of a resumed run (a later transition) another.
  const endedAtMs = Date.parse(run.updatedAt);
  const deliveryId = jobIds.webhookEnded(run.id, Number.isFinite(endedAtMs) ? endedAtMs : end.turn);
  // The status is the end's: a resume between the end and this read must not make the delivery
  // of an end say `running`.
  const payload = webhookPayloadOf({ run: { ...run, status: end.status }, event: 'run.ended', deliveryId });
  await fleet.queues.enqueueWebhook({ runId: run.id, turn: end.turn, url: run.webhook.url, payload }, retryOf(fleet.config));
}

async function enqueueRunWaiting(fleet: EnqueueFleet, park: RunPark): Promise<void> {
  const run = await fleet.store.getRun(park.runId);
  if (!run?.webhook) return;
  const deliveryId = jobIds.webhookWaitingForInput(run.id, park.toolUseId);
  const payload = webhookPayloadOf({ run: { ...run, status: 'waiting_for_input' }, event: 'run.waiting_for_input', deliveryId, question: park.question });
  await fleet.queues.enqueueWebhook({ runId: run.id, turn: park.turn, url: run.webhook.url, payload }, retryOf(fleet.config));
}
