// What one delivery attempt's answer means for the delivery — the one place the retry intent is
// decided (CONVENTIONS 4); the worker maps it onto BullMQ (a thrown error retries with backoff,
// UnrecoverableError ends the delivery). Retried: no answer (network error, timeout), 408, 429 and
// 5xx, the answers that say "later" or say nothing. Every other answer is final: a 2xx delivered
// it; a 3xx is not followed (the receiver's URL moved: following it would let any receiver point
// the fleet's requests at an address the URL check never saw); any other 4xx says the receiver
// will not take it, and sending it again changes nothing. A URL the SSRF guard refuses at delivery
// (its name now resolves to a private address) is final too.

export type WebhookAttemptOutcome =
  { kind: 'delivered'; status: number } | { kind: 'retry'; status: number | null; reason: string } | { kind: 'final'; status: number | null; reason: string };

export type WebhookAttemptAnswer = { status: number } | { error: 'network' | 'timeout' | 'blocked'; message: string };

export function webhookAttemptOutcome(answer: WebhookAttemptAnswer): WebhookAttemptOutcome {
  if ('error' in answer) {
    if (answer.error === 'blocked') return { kind: 'final', status: null, reason: `url_blocked: ${answer.message}` };
    return { kind: 'retry', status: null, reason: `${answer.error}: ${answer.message}` };
  }
  const { status } = answer;
  if (status >= 200 && status <= 299) return { kind: 'delivered', status };
  if (status === 408 || status === 429 || status >= 500) return { kind: 'retry', status, reason: `http_${status}` };
  if (status >= 300 && status <= 399) return { kind: 'final', status, reason: `http_${status}: redirects are not followed` };
  return { kind: 'final', status, reason: `http_${status}` };
}
