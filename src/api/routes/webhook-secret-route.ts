// GET /v1/webhooks/signing-secret: the secret the caller's tenant verifies its webhook deliveries
// with (docs/webhooks.md#verifying-a-delivery). Derived from the fleet's key and the tenant id, so
// the API hands it out without storing one per tenant.
import { z } from 'zod';
import type { FleetContext } from '../../fleet/fleet-context.js';
import { webhookSigningSecret, WEBHOOK_HEADERS, WEBHOOK_TOLERANCE_SECONDS } from '../../webhooks/webhook-signature.js';
import { apiErrors } from '../api-errors.js';
import { defineRoute } from '../define-route.js';
import { tenantOf } from '../tenant-of.js';

const webhookSecretSchema = z
  .object({
    tenant: z.string(),
    secret: z.string().describe('`whsec_` and 64 hex digits: the HMAC-SHA256 key of the signatures of this tenant’s deliveries'),
    signatureHeader: z.literal(WEBHOOK_HEADERS.signature),
    timestampHeader: z.literal(WEBHOOK_HEADERS.timestamp),
    toleranceSeconds: z.literal(WEBHOOK_TOLERANCE_SECONDS).describe('Refuse deliveries whose timestamp is further from now than this'),
  })
  .describe('How the tenant verifies its webhook deliveries (docs/webhooks.md)');
type WebhookSecretView = z.infer<typeof webhookSecretSchema>;

export function webhookSecretRoute({ fleet }: { fleet: FleetContext }) {
  return defineRoute({
    method: 'GET',
    url: '/v1/webhooks/signing-secret',
    operationId: 'getWebhookSigningSecret',
    summary: 'The tenant’s webhook signing secret',
    description:
      'The secret the caller’s tenant checks its webhook deliveries with: every delivery carries ' +
      '`buildfleet-webhook-signature: v1=<hex HMAC-SHA256 of "<timestamp>.<body>">` and ' +
      '`buildfleet-webhook-timestamp` (Unix seconds); refuse a mismatch, and a timestamp more ' +
      'than 300 s from now (docs/webhooks.md). The same for every key of the tenant; it changes ' +
      'only when the operator changes `BUILDFLEET_WEBHOOK_SECRET`. 422 `webhooks_not_configured` ' +
      'when the fleet has none. Needs the `runs:write` scope (whoever may create runs with webhooks).',
    tags: ['runs'],
    access: 'runs:write',
    responses: { 200: { description: 'The tenant’s signing secret', schema: webhookSecretSchema } },
    errors: ['webhooks_not_configured'],
    async handler(request): Promise<WebhookSecretView> {
      const fleetSecret = fleet.config.BUILDFLEET_WEBHOOK_SECRET;
      if (!fleetSecret) throw apiErrors.webhooksNotConfigured();
      const tenant = tenantOf(request);
      return {
        tenant,
        secret: webhookSigningSecret({ fleetSecret, tenant }),
        signatureHeader: WEBHOOK_HEADERS.signature,
        timestampHeader: WEBHOOK_HEADERS.timestamp,
        toleranceSeconds: WEBHOOK_TOLERANCE_SECONDS,
      };
    },
  });
}
