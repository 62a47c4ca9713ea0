// What `npm run demo` does once its fleet is up: submit the sample build, follow it to the end, and
// fetch the published site the way a visitor would — from the sites origin, never the API's —
// checking it arrives sandboxed (docs/sites.md). Its own module so the end-to-end test runs the
// demo's own steps (test/e2e/demo-site.test.ts).
import { ApiClient } from './api-client.js';
import { followRun, type RunView } from './follow-run.js';

export const SAMPLE_PROMPT = 'Build a small website for "Harbor Lights Bakery": a home page with opening hours, an about page, and a simple stylesheet.';

export type SampleBuildOutcome = { ok: true; view: RunView; siteUrl: string } | { ok: false; view: RunView | null; problem: string };

/** Submits the sample build, follows it and fetches its published site. */
export async function runSampleBuild({ apiUrl, apiKey, log }: { apiUrl: string; apiKey: string; log: (line: string) => void }): Promise<SampleBuildOutcome> {
  const client = new ApiClient(apiUrl, apiKey);
  const created = await client.request<{ id: string }>('POST', '/v1/runs', { prompt: SAMPLE_PROMPT });
  log(`submitted ${created.id}: ${SAMPLE_PROMPT}`);
  const view = await followRun(client, created.id, log);
  if (view.status !== 'succeeded' || !view.deployment.live) {
    return { ok: false, view, problem: `the demo build ended ${view.status}${view.error ? `: ${view.error.code} ${view.error.message}` : ''}` };
  }
  const siteUrl = view.deployment.live.url;
  if (new URL(siteUrl).origin === new URL(apiUrl).origin) {
    return { ok: false, view, problem: `the published site ${siteUrl} is on the API's origin; sites need their own (BUILDFLEET_SITES_PUBLIC_URL)` };
  }
  const page = await fetch(siteUrl);
  const html = await page.text();
  if (!page.ok || !html.includes('<html')) return { ok: false, view, problem: `the published site did not serve HTML (status ${page.status})` };
  if (!page.headers.get('content-security-policy')?.startsWith('sandbox ')) {
    return { ok: false, view, problem: 'the published site was served without its sandboxing Content-Security-Policy' };
  }
  return { ok: true, view, siteUrl };
}
