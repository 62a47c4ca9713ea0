// The headers every response of the sites origin carries (src/api/sites-server.ts). Sites are
// model-written HTML and JavaScript, so they are served on an origin of their own (never the API's),
// and the Content-Security-Policy below puts every page in a sandbox on top of that.
//
// `sandbox` without `allow-same-origin` gives the page an opaque origin: its scripts can read no
// cookie, storage or page of the sites origin (nor of another run's site), register no service
// worker, and their requests carry `Origin: null`. The sandbox flags allow what a static site does:
// scripts, forms, links that open a new tab (which then leave the sandbox, as a normal page).
// The fetch directives name only 'self', which browsers match against the URL's origin (the sites
// origin) even in a sandboxed document (w3c/webappsec-csp#260: "all browsers treat 'self' as url's
// origin for sandboxed page"), so a page loads its own files and nothing else: no request to the
// API's origin, the fleet's internals, or a third party. Inline scripts and styles are allowed
// because model-written static pages use them; in an opaque origin they can reach nothing of ours.
// The `sandbox` directive only works as a response header, not in <meta> or Report-Only (MDN,
// "CSP: sandbox").

/** The sites origin's Content-Security-Policy. */
export const SITE_CONTENT_SECURITY_POLICY = [
  'sandbox allow-scripts allow-forms allow-popups allow-popups-to-escape-sandbox',
  "default-src 'self'",
  "script-src 'self' 'unsafe-inline'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data: blob:",
  "font-src 'self' data:",
  "media-src 'self' data: blob:",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'self'",
  "form-action 'self'",
].join('; ');

/**
 * Every sites response's security headers:
 * - the CSP above;
 * - `x-content-type-options: nosniff`: a stored file is never sniffed into HTML or script;
 * - `access-control-allow-origin: *`: the sandboxed page's own origin is opaque, so fetching its own
 *   JSON, module scripts and fonts (all CORS requests) would fail without it; sites are public and
 *   use no credentials, so any origin may read them;
 * - `referrer-policy: no-referrer`: a deployment's URL is an unguessable link that should not leak
 *   to the hosts its page links to.
 */
export const SITE_SECURITY_HEADERS: Readonly<Record<string, string>> = Object.freeze({
  'content-security-policy': SITE_CONTENT_SECURITY_POLICY,
  'x-content-type-options': 'nosniff',
  'access-control-allow-origin': '*',
  'referrer-policy': 'no-referrer',
});
