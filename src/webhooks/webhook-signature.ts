// Webhook signatures (docs/webhooks.md#verifying-a-delivery), in the manner of Stripe and Svix: the
// receiver recomputes HMAC-SHA256 over `<timestamp>.<body>` with its secret and compares, and refuses
// timestamps older than its tolerance, so a captured delivery cannot be replayed later. Each
// tenant's secret is derived from the fleet's key (BUILDFLEET_WEBHOOK_SECRET) and its tenant id:
// nothing to store or rotate per tenant, and one tenant's secret signs nothing for another.
import { createHmac, timingSafeEqual } from 'node:crypto';

/** The headers of every delivery (lower case, as Node's http module presents them). */
export const WEBHOOK_HEADERS = {
  id: 'buildfleet-webhook-id',
  timestamp: 'buildfleet-webhook-timestamp',
  signature: 'buildfleet-webhook-signature',
} as const;

/** The signature scheme's version, the prefix of every signature (`v1=<hex>`): a later scheme gets
 * another prefix, and a receiver accepts any signature it can check. */
export const WEBHOOK_SIGNATURE_VERSION = 'v1';

/** What receivers are told to accept (docs/webhooks.md): five minutes either way. */
export const WEBHOOK_TOLERANCE_SECONDS = 300;

/** The tenant's signing secret: `whsec_` and the hex HMAC-SHA256 of its tenant id under the fleet's
 * key (GET /v1/webhooks/signing-secret hands it to the tenant). */
export function webhookSigningSecret({ fleetSecret, tenant }: { fleetSecret: string; tenant: string }): string {
  return `whsec_${createHmac('sha256', fleetSecret).update(`buildfleet-webhook-signing-secret:${tenant}`, 'utf8').digest('hex')}`;
}

/** The signature header's value for a body sent at `timestamp` (Unix seconds). */
export function signWebhook({ secret, timestamp, body }: { secret: string; timestamp: number; body: string }): string {
  return `${WEBHOOK_SIGNATURE_VERSION}=${createHmac('sha256', secret).update(`${timestamp}.${body}`, 'utf8').digest('hex')}`;
}

export type WebhookVerification = { valid: true } | { valid: false; reason: 'timestamp_invalid' | 'timestamp_outside_tolerance' | 'signature_mismatch' };

/** What a receiver does (the documented procedure, used by the tests): the timestamp is a whole number
 * of seconds within the tolerance of now, and one of the header's `v1=` signatures matches. */
export function verifyWebhook({
  secret,
  body,
  timestampHeader,
  signatureHeader,
  nowSeconds = Math.floor(Date.now() / 1000),
  toleranceSeconds = WEBHOOK_TOLERANCE_SECONDS,
}: {
  secret: string;
  body: string;
  timestampHeader: string;
  signatureHeader: string;
  nowSeconds?: number;
  toleranceSeconds?: number;
}): WebhookVerification {
  if (!/^\d{1,12}$/.test(timestampHeader)) return { valid: false, reason: 'timestamp_invalid' };
  const timestamp = Number(timestampHeader);
  if (Math.abs(nowSeconds - timestamp) > toleranceSeconds) return { valid: false, reason: 'timestamp_outside_tolerance' };
  const expected = Buffer.from(signWebhook({ secret, timestamp, body }), 'utf8');
  // Several signatures may be sent (a secret being rotated); any one that matches is enough.
  for (const candidate of signatureHeader.split(/[ ,]+/)) {
    const given = Buffer.from(candidate.trim(), 'utf8');
    if (given.length === expected.length && timingSafeEqual(given, expected)) return { valid: true };
  }
  return { valid: false, reason: 'signature_mismatch' };
}
