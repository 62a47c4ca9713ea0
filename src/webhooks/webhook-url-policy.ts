// Which URLs a run may name as its webhook (docs/webhooks.md#which-urls-are-accepted). The client
// chooses the URL and the fleet connects to it from inside its network, so it is an SSRF vector
// like a fetch tool's URL and goes through the same guard (src/safety/ssrf-guard.ts): https only,
// no credentials, and every address the name resolves to must be public. The origins of
// BUILDFLEET_WEBHOOK_ALLOWLIST are the operator's exception (http allowed, addresses not checked):
// a receiver on loopback in development and tests. Checked at submit (a clear refusal) and again
// at every delivery, where the connection itself goes through the guarded lookup: DNS can change.
import { blockedAddressReason, blockedHostReason, systemResolver, type HostResolver } from '../safety/ssrf-guard.js';

/** The longest webhook URL accepted (browsers and most servers handle far longer; receivers' own
 * URLs are short, and the URL is stored on the run and carried by every delivery job). */
export const MAX_WEBHOOK_URL_CHARACTERS = 2048;

export type WebhookUrlRefusalCode =
  /** Not an absolute http(s) URL, has credentials, a fragment, or http outside the allowlist. */
  | 'webhook_url_invalid'
  /** The SSRF guard refuses its host or an address it resolves to (or it resolves to none). */
  | 'webhook_url_blocked';

export class WebhookUrlRefused extends Error {
  constructor(
    readonly code: WebhookUrlRefusalCode,
    message: string,
  ) {
    super(message);
    this.name = 'WebhookUrlRefused';
  }

  static isInstance(value: unknown): value is WebhookUrlRefused {
    return value instanceof Error && value.name === 'WebhookUrlRefused' && typeof (value as { code?: unknown }).code === 'string';
  }
}

/** The origins of a comma-separated allowlist (entries that are not http(s) origins are ignored). */
export function webhookAllowlistOrigins(allowlist: string): Set<string> {
  const origins = new Set<string>();
  for (const entry of allowlist.split(',')) {
    if (entry.trim() === '') continue;
    try {
      const url = new URL(entry.trim());
      if (url.protocol === 'http:' || url.protocol === 'https:') origins.add(url.origin);
    } catch {
      // Not a URL: ignored, as BUILDFLEET_FETCH_ALLOWLIST ignores it.
    }
  }
  return origins;
}

export interface CheckedWebhookUrl {
  url: URL;
  /** On the operator's allowlist: connected to without an address check. */
  trusted: boolean;
}

/** The URL's shape and host, without DNS: what submit and every delivery check first. */
export function checkWebhookUrlShape({ url, allowlist }: { url: string; allowlist: string }): CheckedWebhookUrl {
  if (url.length > MAX_WEBHOOK_URL_CHARACTERS)
    throw new WebhookUrlRefused('webhook_url_invalid', `The webhook URL has ${url.length} characters; at most ${MAX_WEBHOOK_URL_CHARACTERS} are allowed.`);
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new WebhookUrlRefused('webhook_url_invalid', 'The webhook URL is not an absolute URL.');
  }
  if (parsed.username !== '' || parsed.password !== '') {
    throw new WebhookUrlRefused(
      'webhook_url_invalid',
      'The webhook URL must not carry credentials (user:password@): deliveries are authenticated by their signature.',
    );
  }
  if (parsed.hash !== '') throw new WebhookUrlRefused('webhook_url_invalid', 'The webhook URL must not have a fragment (#…): it is never sent.');
  const trusted = webhookAllowlistOrigins(allowlist).has(parsed.origin);
  if (trusted) return { url: parsed, trusted };
  if (parsed.protocol !== 'https:') {
    throw new WebhookUrlRefused(
      'webhook_url_invalid',
      `The webhook URL must use https (an http origin only when the operator lists ` +
        `it in BUILDFLEET_WEBHOOK_ALLOWLIST), not ${parsed.protocol.replace(/:$/, '')}.`,
    );
  }
  const refused = blockedHostReason(parsed.hostname);
  if (refused) throw new WebhookUrlRefused('webhook_url_blocked', `The webhook host ${parsed.hostname} is ${refused}; webhooks reach public addresses only.`);
  return { url: parsed, trusted };
}

/** checkWebhookUrlShape, then every address the host resolves to (submit time): a name that resolves
 * to a private address, or to nothing, is refused now rather than failing every delivery later. */
export async function checkWebhookUrl({
  url,
  allowlist,
  resolve = systemResolver,
}: {
  url: string;
  allowlist: string;
  resolve?: HostResolver;
}): Promise<CheckedWebhookUrl> {
  const checked = checkWebhookUrlShape({ url, allowlist });
  if (checked.trusted) return checked;
  const hostname = checked.url.hostname.replace(/^\[|\]$/g, '');
  let addresses: Array<{ address: string }>;
  try {
    addresses = await resolve(hostname);
  } catch (error) {
    const reason = (error as NodeJS.ErrnoException).code ?? (error instanceof Error ? error.message : String(error));
    throw new WebhookUrlRefused('webhook_url_blocked', `The webhook host ${hostname} does not resolve (${reason}).`);
  }
  if (addresses.length === 0) throw new WebhookUrlRefused('webhook_url_blocked', `The webhook host ${hostname} has no address.`);
  for (const { address } of addresses) {
    const reason = blockedAddressReason(address);
    if (reason)
      throw new WebhookUrlRefused(
        'webhook_url_blocked',
        `The webhook host ${hostname} resolves to ${address}, ${reason}; webhooks reach public addresses only.`,
      );
  }
  return checked;
}
