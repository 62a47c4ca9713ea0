import { describe, expect, it } from 'vitest';
import { signWebhook, verifyWebhook, webhookSigningSecret } from './webhook-signature.js';

describe('webhook signatures', () => {
  const secret = webhookSigningSecret({ fleetSecret: 'f'.repeat(32), tenant: 'acme' });
  const body = '{"event":"run.ended"}';
  const now = 1_800_000_000;

  it('derives a different secret per tenant', () => {
    expect(secret).toMatch(/^whsec_[0-9a-f]{64}$/);
    expect(webhookSigningSecret({ fleetSecret: 'f'.repeat(32), tenant: 'other' })).not.toBe(secret);
  });

  it('verifies its own signature and refuses a tampered body, another secret and a stale timestamp', () => {
    const signatureHeader = signWebhook({ secret, timestamp: now, body });
    expect(verifyWebhook({ secret, body, timestampHeader: String(now), signatureHeader, nowSeconds: now + 10 })).toEqual({ valid: true });
    expect(verifyWebhook({ secret, body: body.replace('ended', 'failed'), timestampHeader: String(now), signatureHeader, nowSeconds: now })).toMatchObject({ reason: 'signature_mismatch' });
    expect(verifyWebhook({ secret: `${secret}x`, body, timestampHeader: String(now), signatureHeader, nowSeconds: now })).toMatchObject({ reason: 'signature_mismatch' });
    expect(verifyWebhook({ secret, body, timestampHeader: String(now), signatureHeader, nowSeconds: now + 301 })).toMatchObject({ reason: 'timestamp_outside_tolerance' });
    // The timestamp is signed: moving it forward breaks the signature.
    expect(verifyWebhook({ secret, body, timestampHeader: String(now + 300), signatureHeader, nowSeconds: now + 300 })).toMatchObject({ reason: 'signature_mismatch' });
  });
});
