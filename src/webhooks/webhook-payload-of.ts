// The payload of a run's event, from the run as it stood right after the event (the engine's run
// record): what the delivery job carries, so every attempt posts the same bytes.
import type { RunRecord } from '../engine/index.js';
import { microUsdToUsd } from '../domain/usage-cost.js';
import { webhookPayloadSchema, type WebhookEvent, type WebhookPayload } from '../domain/webhook-payload.js';

/** Builds (and validates) the payload of `event` for `run`. */
export function webhookPayloadOf({
  run,
  event,
  deliveryId,
  question = null,
}: {
  run: RunRecord;
  event: WebhookEvent;
  deliveryId: string;
  question?: string | null;
}): WebhookPayload {
  return webhookPayloadSchema.parse({
    id: deliveryId,
    event,
    occurredAt: run.updatedAt || new Date().toISOString(),
    runId: run.id,
    tenant: run.tenant,
    status: run.status,
    error: run.error,
    result: run.result,
    costUsd: microUsdToUsd(run.costMicroUsd),
    question: event === 'run.waiting_for_input' ? (question ?? run.question?.question ?? null) : null,
    createdAt: run.createdAt,
  });
}
