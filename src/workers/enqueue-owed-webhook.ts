// The enqueue of the `run.ended` delivery a run's end owes (docs/webhooks.md#guarantee), shared by
// the fast path (the process that ended the run, enqueue-webhooks.ts) and the webhook sweep
// (webhook-sweeper.ts), so both build the same delivery under the same id. The ending script
// recorded what is owed on the run's hash; the job is added under the delivery's deterministic id
// (a second enqueue of the same end is a no-op while its job is kept), and only then is the record
// settled: a crash in between leaves it for the sweep, whose enqueue then changes nothing.
import type { WorkerFleet } from './worker-fleet.js';
import { jobIds } from '../jobs/job-catalog.js';
import { webhookPayloadOf } from '../webhooks/webhook-payload-of.js';

export type OwedWebhookEnqueue =
  /** The delivery's job exists (added now, or it was already) and the record is settled. */
  | 'enqueued'
  /** The run owes no delivery (settled already, or it names no webhook). */
  | 'nothing_owed'
  /** The run has no record any more (its retention ran out): nothing can be delivered. */
  | 'run_gone';

/** Enqueues the delivery the run's last end owes, if it owes one. Throws when Redis or the job's
 * validation refuses it: the record stays, for the sweep to try again. */
export async function enqueueOwedWebhook(fleet: Pick<WorkerFleet, 'store' | 'queues' | 'config'>, runId: string): Promise<OwedWebhookEnqueue> {
  const read = await fleet.store.readOwedWebhook(runId);
  if (!read) return 'run_gone';
  const { run, owed } = read;
  if (!owed) return 'nothing_owed';
  if (!run.webhook) {
    // Only an end of a run naming a webhook records one; a record without it has nothing to post to.
    await fleet.store.settleOwedWebhook(runId, owed);
    return 'nothing_owed';
  }
  // The end's own transition time names the delivery: the same end enqueued again is the same job,
  // a later end of a resumed run another.
  const endedAtMs = Date.parse(owed.endedAt);
  const deliveryId = jobIds.webhookEnded(run.id, Number.isFinite(endedAtMs) ? endedAtMs : run.turn);
  // The status and time are the end's: a resume since must not make the delivery say `running`.
  const payload = webhookPayloadOf({ run: { ...run, status: owed.status, updatedAt: owed.endedAt }, event: 'run.ended', deliveryId });
  await fleet.queues
    .of(run.queueShard)
    .enqueueWebhook(
      { runId: run.id, turn: run.turn, url: run.webhook.url, payload },
      { attempts: fleet.config.BUILDFLEET_WEBHOOK_ATTEMPTS, backoffMs: fleet.config.BUILDFLEET_WEBHOOK_BACKOFF_MS },
    );
  await fleet.store.settleOwedWebhook(runId, owed);
  return 'enqueued';
}
