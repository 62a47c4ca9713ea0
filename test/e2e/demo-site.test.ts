// The demo's own steps (src/cli/demo-sample-build.ts) against a dev fleet of separate processes,
// as `npm run demo` starts it: the sample build publishes its site, and the site is fetched from the
// sites origin, sandboxed; the API's origin answers the same path with a redirect, not the page.
import { describe, expect, it } from 'vitest';
import { runSampleBuild } from '../../src/cli/demo-sample-build.js';
import { SITE_CONTENT_SECURITY_POLICY } from '../../src/api/sites/site-security-headers.js';
import { useDevFleet } from '../support/dev-fleet.js';

const handle = useDevFleet({ label: 'demosite', modelWorkers: 1, toolWorkers: 1 });

describe('the demo', () => {
  it('publishes its site and fetches it from the sites origin, never the API’s', async () => {
    const { apiUrl, sitesUrl, apiKey } = handle.fleet;
    expect(new URL(sitesUrl).origin).not.toBe(new URL(apiUrl).origin);
    const lines: string[] = [];
    const outcome = await runSampleBuild({ apiUrl, apiKey, log: (line) => lines.push(line) });
    expect(outcome.ok ? null : outcome.problem).toBeNull();
    if (!outcome.ok) return;
    const siteUrl = new URL(outcome.siteUrl);
    expect(siteUrl.origin).toBe(new URL(sitesUrl).origin);

    const page = await fetch(siteUrl);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-security-policy')).toBe(SITE_CONTENT_SECURITY_POLICY);
    const html = await page.text();
    expect(html).toContain('<html');

    // The same path on the API's origin: a redirect to the sites origin, without the page.
    const onApi = await fetch(`${apiUrl}${siteUrl.pathname}`, { redirect: 'manual' });
    expect(onApi.status).toBe(308);
    expect(onApi.headers.get('location')).toBe(siteUrl.href);
    expect(await onApi.text()).not.toContain('<html');
  }, 120_000);
});
