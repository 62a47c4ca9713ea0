// The webhook of a run being submitted (docs/webhooks.md#which-urls-are-accepted), checked before
// the run is admitted — a refused URL uses no slot and no rate — with the API's error codes.
import type { FleetContext } from '../fleet/fleet-context.js';
import type { RunWebhook } from '../engine/index.js';
import { checkWebhookUrl, WebhookUrlRefused } from '../webhooks/webhook-url-policy.js';
import { apiErrors } from './api-errors.js';

/** The errors checkRunWebhook answers, for the routes' documentation. */
export const RUN_WEBHOOK_ERRORS = ['webhook_url_invalid', 'webhook_url_blocked', 'webhooks_not_configured'] as const;

/** The webhook to store on the run (null: none asked for), or the API error of its refusal. */
export async function checkRunWebhook({
  fleet,
  webhook,
}: {
  fleet: Pick<FleetContext, 'config'>;
  webhook: RunWebhook | undefined;
}): Promise<RunWebhook | null> {
  if (!webhook) return null;
  if (!fleet.config.BUILDFLEET_WEBHOOK_SECRET) throw apiErrors.webhooksNotConfigured();
  try {
    await checkWebhookUrl({ url: webhook.url, allowlist: fleet.config.BUILDFLEET_WEBHOOK_ALLOWLIST });
  } catch (error) {
    if (!WebhookUrlRefused.isInstance(error)) throw error;
    throw error.code === 'webhook_url_invalid' ? apiErrors.webhookUrlInvalid(error.message) : apiErrors.webhookUrlBlocked(error.message);
  }
  return { url: webhook.url };
}
