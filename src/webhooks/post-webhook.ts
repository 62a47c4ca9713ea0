// One delivery attempt: a signed POST of the payload through the SSRF guard's connection
// (src/safety/ssrf-guard-fetch.ts: the name is resolved by the guarded lookup and the socket
// connects to exactly the address that was checked, then checked once more), bounded in time, with
// no redirect followed and at most a few hundred bytes of the answer read (for the event's excerpt).
import { guardedFetch } from '../safety/ssrf-guard-fetch.js';
import { SsrfBlockedError, type HostResolver } from '../safety/ssrf-guard.js';
import { checkWebhookUrlShape, WebhookUrlRefused } from './webhook-url-policy.js';
import { signWebhook, WEBHOOK_HEADERS } from './webhook-signature.js';
import type { WebhookAttemptAnswer } from './webhook-attempt-outcome.js';

/** Bytes of the receiver's answer read (and kept in the attempt's event, for whoever debugs a 4xx). */
export const WEBHOOK_RESPONSE_EXCERPT_BYTES = 256;

export interface PostWebhookInput {
  url: string;
  /** The payload's JSON, as signed and sent. */
  body: string;
  deliveryId: string;
  /** The tenant's signing secret (webhookSigningSecret). */
  secret: string;
  /** BUILDFLEET_WEBHOOK_ALLOWLIST. */
  allowlist: string;
  timeoutMs: number;
  /** DNS for hosts off the allowlist (default: the system resolver); tests script answers here. */
  resolve?: HostResolver;
  /** Unix seconds of the attempt (default now): signed, so a receiver can refuse old replays. */
  nowSeconds?: number;
}

export type PostWebhookResult = WebhookAttemptAnswer & { excerpt?: string };

/** Sends one attempt; never throws: every way it can end is an answer for webhookAttemptOutcome. */
export async function postWebhook(input: PostWebhookInput): Promise<PostWebhookResult> {
  let target: ReturnType<typeof checkWebhookUrlShape>;
  try {
    // Again at every attempt: the allowlist may have changed since the run was submitted.
    target = checkWebhookUrlShape({ url: input.url, allowlist: input.allowlist });
  } catch (error) {
    if (WebhookUrlRefused.isInstance(error)) return { error: 'blocked', message: error.message };
    throw error;
  }
  const timestamp = input.nowSeconds ?? Math.floor(Date.now() / 1000);
  const signal = AbortSignal.timeout(input.timeoutMs);
  try {
    const response = await guardedFetch(target.url, {
      method: 'POST',
      body: input.body,
      headers: {
        'content-type': 'application/json',
        'content-length': String(Buffer.byteLength(input.body, 'utf8')),
        'user-agent': 'buildfleet-webhooks/1',
        [WEBHOOK_HEADERS.id]: input.deliveryId,
        [WEBHOOK_HEADERS.timestamp]: String(timestamp),
        [WEBHOOK_HEADERS.signature]: signWebhook({ secret: input.secret, timestamp, body: input.body }),
      },
      signal,
      trusted: target.trusted,
      ...(input.resolve ? { resolve: input.resolve } : {}),
    });
    return { status: response.status, excerpt: await readExcerpt(response) };
  } catch (error) {
    if (SsrfBlockedError.isInstance(error)) return { error: 'blocked', message: error.message };
    if (signal.aborted) return { error: 'timeout', message: `no answer within ${input.timeoutMs} ms` };
    const cause = error instanceof Error && error.cause instanceof Error ? error.cause : error;
    const code = (cause as NodeJS.ErrnoException | undefined)?.code;
    return { error: 'network', message: code ?? (cause instanceof Error ? cause.message : String(cause)) };
  }
}

/** The first bytes of the answer's body, then the stream is cancelled (a receiver that streams a
 * large or endless answer costs the worker nothing more). */
async function readExcerpt(response: Response): Promise<string> {
  if (!response.body) return '';
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let bytes = 0;
  try {
    while (bytes < WEBHOOK_RESPONSE_EXCERPT_BYTES) {
      const { done, value } = await reader.read();
      if (done) break;
      chunks.push(value);
      bytes += value.byteLength;
    }
  } catch {
    // An answer cut short still has its status; the excerpt is only a help.
  } finally {
    await reader.cancel().catch(() => undefined);
  }
  return Buffer.concat(chunks).subarray(0, WEBHOOK_RESPONSE_EXCERPT_BYTES).toString('utf8');
}
