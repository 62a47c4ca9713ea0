// The console's fleet overview in a real Chromium, over a whole in-process fleet with run history
// (real Redis, real PostgreSQL, the simulator through the real SDK, real workers, the API and the
// console on loopback ports): a few builds run — one failing and one writing tool calls as text,
// through simulator scenarios — and are archived; an admin signing in lands on the overview, whose
// charts uPlot draws (a canvas each, legends naming the series and the alarm thresholds) under the
// console's Content-Security-Policy, with the tool-count table, the queues and a range selector kept
// in the URL; at a phone's width (390 px) nothing scrolls sideways; a tenant key with no runs sees
// its own tenant's empty states. Takes the screenshot console-overview.png: into a temporary folder,
// so a test run leaves the checkout as it found it, or into docs/ with BUILDFLEET_UPDATE_SCREENSHOTS=1
// (as console-browser.test.ts does for its pictures).
//
// Skipped, with a printed reason, when no Chromium is installed (test/support/chromium.ts).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { ApiKeyStore } from '../../src/auth/api-key-store.js';
import { chromiumForTests } from '../support/chromium.js';
import { createTestDatabase, type TestDatabase } from '../support/postgres.js';
import { startInProcessFleet, type InProcessFleet } from '../support/in-process-fleet.js';
import { until } from '../support/until.js';

// What the functions handed to page.evaluate use inside the page (this project compiles without the DOM library).
declare const document: any;

const binary = await chromiumForTests('console-overview-browser');
const SCREENSHOTS =
  process.env.BUILDFLEET_UPDATE_SCREENSHOTS === '1'
    ? join(import.meta.dirname, '..', '..', 'docs')
    : mkdtempSync(join(tmpdir(), 'buildfleet-overview-screenshots-'));
/** Generous: a loaded two-core machine runs this beside other suites. */
const SLOW = 120_000;

let database: TestDatabase;
let fleet: InProcessFleet;
let consoleUrl: string;
let browser: Browser;
let page: Page;
const violations: string[] = [];

beforeAll(async () => {
  if (!binary) return;
  database = await createTestDatabase('overviewbrowser');
  fleet = await startInProcessFleet({
    label: 'overviewbrowser',
    console: true,
    // Strict tools off: the simulator writes no call of a strict tool as text (text_tool_calls below).
    env: { DATABASE_URL: database.url, BUILDFLEET_RATE_LIMIT_PER_MINUTE: '0', BUILDFLEET_STRICT_TOOLS: 'false' },
  });
  consoleUrl = fleet.consoleUrl!;
  const runs = await Promise.all([
    fleet.submit({ tenant: 'default', prompt: 'A landing page for a bakery called Harbor Lights.' }),
    fleet.submit({ tenant: 'default', prompt: 'A page for a florist.', options: { scenario: 'text_tool_calls' } }),
    fleet.submit({ tenant: 'default', prompt: 'A page for a cafe.', options: { scenario: 'unknown_stop_reason' } }),
    fleet.submit({ tenant: 'harbor', prompt: 'A page for a bike shop.' }),
  ]);
  for (const run of runs) await fleet.waitForRun(run.id, SLOW);
  for (const run of runs) await until(`run ${run.id} archived`, () => fleet.fleet.history!.getRun(run.id), SLOW);
  const { chromium } = await import('playwright-core');
  browser = await chromium.launch({ executablePath: binary, headless: true, chromiumSandbox: false, env: { PATH: process.env.PATH ?? '/usr/bin:/bin' } });
  page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  page.on('console', (message) => {
    if (/Content Security Policy/i.test(message.text())) violations.push(message.text());
  });
}, SLOW * 2);

afterAll(async () => {
  await browser?.close();
  await fleet?.close();
  await database?.drop();
  if (process.env.BUILDFLEET_UPDATE_SCREENSHOTS !== '1') rmSync(SCREENSHOTS, { recursive: true, force: true });
});

async function signIn(on: Page, key: string): Promise<void> {
  await on.goto(consoleUrl);
  await on.locator('#api-key').fill(key);
  await on.getByRole('button', { name: 'Sign in' }).click();
  await on.getByTestId('who').waitFor({ timeout: SLOW });
}

/** The legend labels of one chart, as uPlot writes them. */
const legendOf = (testId: string) => page.locator(`[data-testid="${testId}"] .u-legend .u-label`).allTextContents();

/** Waits until every chart with data has its canvas. */
async function untilChartsDrawn(): Promise<void> {
  await until('the charts drawn', async () => {
    const drawn = await page.locator('.chart[data-drawn="true"]').count();
    return drawn > 0 && (await page.locator('.chart[data-drawn="true"] canvas').count()) === drawn;
  });
}

const horizontalOverflow = () => page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth) as Promise<number>;

describe.skipIf(!binary)('the fleet overview in a real Chromium', () => {
  it('is where an admin lands: runs, cost, latency and health drawn by uPlot, with the thresholds', async () => {
    await signIn(page, fleet.apiKey);
    await page.getByTestId('overview').waitFor({ timeout: SLOW });
    expect(new URL(page.url()).hash).toBe('');
    expect(await page.getByRole('link', { name: 'Overview', exact: true }).getAttribute('class')).toBe('current');
    await untilChartsDrawn();
    expect(await page.getByTestId('stat-runs').textContent()).toContain('4');
    expect(await page.getByTestId('stat-runs').textContent()).toContain('1 failed');
    expect(await page.getByTestId('stat-success').textContent()).toContain('75.0%');
    const drawnCharts = ['chart-runs', 'chart-cost-tenant', 'chart-cost-model', 'chart-turn-latency', 'chart-model-latency'];
    drawnCharts.push('chart-tool-use', 'chart-json-in-text', 'chart-recovery');
    for (const chart of drawnCharts) {
      expect(await page.locator(`[data-testid="${chart}"] canvas`).count(), chart).toBe(1);
    }
    expect(await legendOf('chart-runs')).toEqual(expect.arrayContaining(['succeeded', 'failed', 'refused', 'cancelled']));
    expect(await legendOf('chart-cost-tenant')).toEqual(expect.arrayContaining(['default', 'harbor']));
    expect(await legendOf('chart-turn-latency')).toEqual(expect.arrayContaining(['p50', 'p99']));
    // The seeds' thresholds are drawn as series of their own, named in the legend.
    expect(await legendOf('chart-tool-use')).toEqual(expect.arrayContaining(['tool_use_rate', 'alarm < 95%', 'critical < 90%']));
    expect(await legendOf('chart-recovery')).toEqual(expect.arrayContaining(['recovery rate', 'alarm > 5%']));
    // No trip happened: that chart shows its empty state rather than an empty frame.
    expect(await page.locator('[data-testid="chart-trips"] [data-testid="chart-empty"]').count()).toBe(1);
    expect(await page.locator('[data-testid="tool-counts"] tbody tr').count()).toBeGreaterThan(0);
    expect(await page.locator('[data-testid="overview-queues"] tr[data-queue]').count()).toBeGreaterThan(0);
    expect(await horizontalOverflow()).toBeLessThanOrEqual(0);
    await page.screenshot({ path: join(SCREENSHOTS, 'console-overview.png'), fullPage: true });
  }, SLOW);

  it('keeps the range in the URL, and the runs list a click away', async () => {
    await page.getByTestId('overview-ranges').getByRole('button', { name: '7d' }).click();
    await until('the 7d range in the URL', async () => new URL(page.url()).hash === '#/overview?range=7d');
    await until('the 7d range shown', async () => (await page.locator('[data-testid="overview-ranges"] button[aria-pressed="true"]').textContent()) === '7d');
    await untilChartsDrawn();
    await page.reload();
    await untilChartsDrawn();
    expect(await page.locator('[data-testid="overview-ranges"] button[aria-pressed="true"]').textContent()).toBe('7d');
    await page.getByRole('link', { name: 'Runs', exact: true }).click();
    await page.locator('[data-testid="runs"] tbody tr[data-run]').first().waitFor({ timeout: SLOW });
    expect(new URL(page.url()).hash).toBe('#/');
  }, SLOW);

  it('fits a phone: at 390 px the charts follow the width and nothing scrolls sideways', async () => {
    await page.setViewportSize({ width: 390, height: 844 });
    await page.goto(`${consoleUrl}/#/overview`);
    await untilChartsDrawn();
    await until('the charts at the phone’s width', async () => {
      const canvases = page.locator('.chart canvas');
      const widths = (await canvases.evaluateAll((all) => all.map((canvas) => (canvas as any).getBoundingClientRect().width))) as number[];
      return widths.length > 0 && widths.every((width) => width <= 390);
    });
    expect(await horizontalOverflow()).toBeLessThanOrEqual(0);
    expect(await legendOf('chart-tool-use')).toEqual(expect.arrayContaining(['alarm < 95%']));
    await page.setViewportSize({ width: 1280, height: 900 });
  }, SLOW);

  it('shows a tenant key its own tenant, with empty states where it has no runs', async () => {
    const key = await new ApiKeyStore({ redis: fleet.fleet.redis, keys: fleet.fleet.store.keys }).create({ tenant: 'quiet', scopes: ['runs:read'] });
    // A browser of its own: the admin's session stays where it is.
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    try {
      const tenantPage = await context.newPage();
      tenantPage.on('console', (message) => {
        if (/Content Security Policy/i.test(message.text())) violations.push(message.text());
      });
      await signIn(tenantPage, key.token);
      // Not an admin: it lands on the runs list, and opens the overview from the nav.
      await tenantPage.locator('input[name="prompt"]').waitFor({ timeout: SLOW });
      await tenantPage.getByRole('link', { name: 'Overview', exact: true }).click();
      await tenantPage.getByTestId('stat-runs').waitFor({ timeout: SLOW });
      expect(await tenantPage.locator('.overview-scope').textContent()).toContain('Tenant quiet');
      expect(await tenantPage.getByTestId('stat-runs').textContent()).toContain('0');
      expect(await tenantPage.locator('.chart canvas').count()).toBe(0);
      expect(await tenantPage.locator('[data-testid="chart-runs"] [data-testid="chart-empty"]').textContent()).toBe('No run archived in this range.');
      expect(await tenantPage.getByTestId('overview-queues').count()).toBe(0);
    } finally {
      await context.close();
    }
    expect(violations).toEqual([]);
  }, SLOW);
});
