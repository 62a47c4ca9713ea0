// The sites origin's sandbox, as a real Chromium enforces it: a published page whose script tries
// the API's origin (fetch, an image), storage and cookies gets none of them — its origin is opaque,
// its requests stay on the sites origin — while its own files (JSON over fetch, images) still load.
// Opened through the API's origin, the page is only ever shown from the sites origin. The API
// listener sees no request from the page.
//
// Skipped, with a printed reason, when no Chromium is installed (test/support/chromium.ts).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiTestHarness, type ApiTestHarness } from '../../src/api/testing/api-test-harness.js';
import { freePort } from '../../src/dev/private-redis.js';
import type { RunRecord } from '../../src/engine/index.js';
import { chromiumForTests } from '../support/chromium.js';

const binary = await chromiumForTests('sites-origin-browser');

let harness: ApiTestHarness;
let apiUrl: string;
let sitesUrl: string;
let run: RunRecord;
/** Requests that reached the API's listener while the browser was on the page. */
const apiRequests: string[] = [];

const LOGO = '<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><rect width="10" height="10"/></svg>';

function hostilePage(api: string): string {
  return `<!doctype html><html><head><title>pending</title></head><body>
<img id="own" src="logo.svg"><img id="api" src="${api}/healthz?from=img">
<script>
(async () => {
  const results = { origin: self.origin };
  try { localStorage.setItem('k', 'v'); results.storage = 'allowed'; } catch { results.storage = 'blocked'; }
  try { document.cookie = 'a=b'; results.cookie = document.cookie === '' ? 'blocked' : 'allowed'; } catch { results.cookie = 'blocked'; }
  results.ownJson = await fetch('data.json').then((response) => response.json()).then((body) => (body.ok ? 'loaded' : 'wrong'), () => 'blocked');
  results.api = await fetch('${api}/healthz?from=fetch').then(() => 'reached', () => 'blocked');
  results.apiNoCors = await fetch('${api}/v1/runs?from=no-cors', { mode: 'no-cors' }).then(() => 'reached', () => 'blocked');
  document.title = JSON.stringify(results);
})();
</script></body></html>`;
}

beforeAll(async () => {
  if (!binary) return;
  // The sites origin's public URL is its real listener here, so the API's redirects lead there.
  const sitesPort = await freePort();
  sitesUrl = `http://127.0.0.1:${sitesPort}`;
  harness = await createApiTestHarness({ label: 'sitesbrowser', environment: { BUILDFLEET_SITES_PUBLIC_URL: sitesUrl } });
  apiUrl = await harness.listen();
  await harness.sites.listen({ host: '127.0.0.1', port: sitesPort });
  harness.app.server.on('request', (request: { url?: string }) => apiRequests.push(request.url ?? ''));
  run = await harness.newRun({ status: 'running' });
  await harness.writeFile(run.id, 'index.html', hostilePage(apiUrl));
  await harness.writeFile(run.id, 'data.json', '{"ok": true}');
  await harness.writeFile(run.id, 'logo.svg', LOGO);
  await harness.deploy(run.id, 'dep_browser');
  await harness.fleet.store.updateRun(run.id, { liveDeploy: 'dep_browser' });
});

afterAll(async () => {
  await harness?.close();
});

/** Polls the page's title until it passes, for at most 30 s (then the assertion after says what it was). */
async function waitForTitle(page: { title(): Promise<string> }, done: (title: string) => boolean): Promise<void> {
  const deadline = Date.now() + 30_000;
  while (!done(await page.title()) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
}

describe.skipIf(!binary)('a published page in a real Chromium', () => {
  it('runs sandboxed on the sites origin: no storage, no cookie, no request to the API; its own files load', async () => {
    const { chromium } = await import('playwright-core');
    const browser = await chromium.launch({ executablePath: binary!, headless: true, chromiumSandbox: false, env: { PATH: process.env.PATH ?? '/usr/bin:/bin' } });
    try {
      for (const entry of [`${sitesUrl}/sites/${run.id}/`, `${apiUrl}/sites/${run.id}/`]) {
        const page = await browser.newPage();
        apiRequests.length = 0;
        await page.goto(entry, { waitUntil: 'load' });
        // The page writes its findings into its title. Read from here (CDP), not with
        // page.waitForFunction: Playwright's polling evaluates a string predicate inside the page,
        // which the sites' CSP rightly refuses ('unsafe-eval'), so it failed whenever the first
        // check came before the page had finished (a loaded machine).
        await waitForTitle(page, (title) => title !== 'pending');
        // Shown from the sites origin, whichever origin the link named.
        expect(new URL(page.url()).origin, entry).toBe(sitesUrl);
        expect(JSON.parse(await page.title()), entry).toEqual({ origin: 'null', storage: 'blocked', cookie: 'blocked', ownJson: 'loaded', api: 'blocked', apiNoCors: 'blocked' });
        const images = await page.evaluate("({ own: document.getElementById('own').naturalWidth, api: document.getElementById('api').naturalWidth })");
        expect(images, entry).toEqual({ own: 10, api: 0 });
        await page.close();
        // Only the redirect of the link itself, when the link named the API's origin.
        expect(apiRequests, entry).toEqual(entry.startsWith(apiUrl) ? [`/sites/${run.id}/`] : []);
      }
    } finally {
      await browser.close();
    }
  }, 60_000);
});
