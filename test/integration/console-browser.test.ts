// The run console in a real Chromium, over a whole in-process fleet (real Redis, the simulator
// through the real SDK, real workers, the API and the console on loopback ports): sign in with an
// API key, submit a build and watch it finish on its run page without a reload, open a tool call,
// answer an ask_user question, cancel a run, resume a run that failed on a simulated model outage
// and rerun it, follow the site and trace links, filter the runs
// list, and as an admin reset a tripped kill-switch scope, read the queue depths and workers and
// open Bull Board (which a key without the admin scope neither sees nor opens) — and check that the key is nowhere page JavaScript can read it, and that a page of another
// origin on the same host (as the sites origin is) cannot make the console act. Takes the
// screenshots docs/console-runs.png, docs/console-run.png and docs/console-admin.png.
//
// Skipped, with a printed reason, when no Chromium is installed (test/support/chromium.ts).
import { createServer, type Server } from 'node:http';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { ApiKeyStore } from '../../src/auth/api-key-store.js';
import { freePort } from '../../src/dev/private-redis.js';
import { newRunId } from '../../src/engine/run-engine.js';
import { KillSwitch } from '../../src/safety/kill-switch.js';
import { upstreamOf } from '../../src/safety/kill-switch-scope.js';
import { chromiumForTests } from '../support/chromium.js';
import { startInProcessFleet, type InProcessFleet } from '../support/in-process-fleet.js';

// What the functions handed to page.evaluate use inside the page (this project compiles without the DOM library).
declare const document: any;
declare const localStorage: object;
declare const sessionStorage: object;

const binary = await chromiumForTests('console-browser');
const TRACE_TEMPLATE = 'http://127.0.0.1:16686/trace/{traceId}';
const DOCS = join(import.meta.dirname, '..', '..', 'docs');
/** Generous: a loaded two-core machine runs this beside other suites. */
const SLOW = 60_000;

let fleet: InProcessFleet;
let consoleUrl: string;
let browser: Browser;
let page: Page;
/** Another origin on the same host (another port), as the sites origin is: same-site, cross-origin. */
let otherOrigin: Server;
let otherOriginUrl: string;

beforeAll(async () => {
  if (!binary) return;
  const consolePort = await freePort();
  consoleUrl = `http://127.0.0.1:${consolePort}`;
  fleet = await startInProcessFleet({
    label: 'consolebrowser',
    env: { BUILDFLEET_CONSOLE_PORT: String(consolePort), BUILDFLEET_TRACE_URL_TEMPLATE: TRACE_TEMPLATE, BUILDFLEET_RATE_LIMIT_PER_MINUTE: '0', BUILDFLEET_RETRY_BASE_MS: '50' },
    // Each model answer takes a moment, so a build lasts a few seconds: long enough to be watched.
    simulator: { latencyMs: { min: 250, max: 350 } },
  });
  otherOrigin = createServer((_request, response) => response.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><title>other origin</title>'));
  const otherPort = await freePort();
  await new Promise<void>((resolve) => otherOrigin.listen(otherPort, '127.0.0.1', resolve));
  otherOriginUrl = `http://127.0.0.1:${otherPort}`;
  const { chromium } = await import('playwright-core');
  browser = await chromium.launch({ executablePath: binary, headless: true, chromiumSandbox: false, env: { PATH: process.env.PATH ?? '/usr/bin:/bin' } });
  page = await browser.newPage({ viewport: { width: 1280, height: 860 } });
  // The cancel button asks for confirmation.
  page.on('dialog', (dialog) => void dialog.accept());
}, SLOW);

afterAll(async () => {
  await browser?.close();
  await new Promise((resolve) => otherOrigin?.close(resolve));
  await fleet?.close();
});

/** Polls until `check` passes, for at most `timeoutMs` (then the caller's assertion says what it was). */
async function until(check: () => Promise<boolean>, timeoutMs = SLOW): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check()) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 100));
}

const statusOnRunPage = () => page.locator('.run-head [data-status]').getAttribute('data-status');

/** The kill switch's state, read from the API as an operator's client would. */
async function adminKillSwitch(): Promise<{ scopes: unknown[] }> {
  const response = await fetch(`${fleet.apiUrl}/v1/admin/killswitch`, { headers: { authorization: `Bearer ${fleet.apiKey}` } });
  expect(response.status).toBe(200);
  return (await response.json()) as { scopes: unknown[] };
}

async function consoleSessionKeys(): Promise<string[]> {
  return fleet.fleet.redis.keys(`${fleet.config.BUILDFLEET_PREFIX}:console:session:*`);
}

describe.skipIf(!binary)('the run console in a real Chromium', () => {
  it('signs in with an API key that page JavaScript can then read nowhere', async () => {
    await page.goto(consoleUrl);
    await page.locator('#api-key').fill(fleet.apiKey);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByTestId('who').waitFor({ timeout: SLOW });
    expect(await page.getByTestId('who').textContent()).toContain('tenant default');

    const visible = (await page.evaluate(() => ({
      cookie: document.cookie,
      local: JSON.stringify({ ...localStorage }),
      session: JSON.stringify({ ...sessionStorage }),
      html: document.documentElement.outerHTML,
    }))) as Record<string, string>;
    for (const [where, text] of Object.entries(visible)) expect(text, where).not.toContain(fleet.apiKey);
    expect(visible.cookie).toBe('');
    // The browser holds the session as an HttpOnly, SameSite=Strict cookie of the console's host.
    const cookies = await page.context().cookies(consoleUrl);
    expect(cookies).toHaveLength(1);
    expect(cookies[0]).toMatchObject({ name: 'bf_console', httpOnly: true, sameSite: 'Strict' });
    expect(cookies[0]!.value).not.toContain(fleet.apiKey);
    // Redis holds one session, and not the key in the clear.
    const sessions = await consoleSessionKeys();
    expect(sessions).toHaveLength(1);
    expect(await fleet.fleet.redis.get(sessions[0]!)).not.toContain(fleet.apiKey);
  }, SLOW);

  it('submits a build and shows it to its end live: turns, tool calls, cost, the site', async () => {
    await page.getByRole('link', { name: 'New build', exact: true }).first().click();
    await page.locator('#prompt').fill('A landing page for a bakery in Lisbon, with opening hours.');
    await page.getByRole('button', { name: 'Start the build' }).click();
    await page.waitForURL(/#\/runs\/run_/, { timeout: SLOW });
    const runId = new URL(page.url()).hash.slice('#/runs/'.length);
    await page.locator('.run-head [data-status]').waitFor({ timeout: SLOW });
    const firstSeen = await statusOnRunPage();
    // Seen before its end, so what follows arrived live on this page (no reload happens).
    expect(['queued', 'running']).toContain(firstSeen);
    await until(async () => (await statusOnRunPage()) === 'succeeded');
    expect(await statusOnRunPage()).toBe('succeeded');
    expect((await fleet.fleet.store.getRun(runId))?.status).toBe('succeeded');
    await until(async () => (await page.getByTestId('stream-state').textContent()) === 'ended');
    expect(await page.getByTestId('stream-state').textContent()).toBe('ended');

    const timeline = page.getByTestId('timeline');
    expect(await timeline.locator('[data-event="turn-start"]').count()).toBeGreaterThan(3);
    expect(await timeline.locator('[data-event="model-response"]').count()).toBeGreaterThan(3);
    expect(await timeline.locator('[data-event="phase-change"]').count()).toBeGreaterThan(0);
    expect(await timeline.locator('[data-event="run-end"]').textContent()).toContain('succeeded');
    const writes = timeline.locator('[data-event="tool-call"][data-tool="write_file"]');
    expect(await writes.count()).toBeGreaterThan(0);
    // A tool call opens to its input and output with the contract's verdict
    // (GET /v1/runs/:id/tool-calls), and to what its events carry.
    const firstWrite = writes.first();
    await until(async () => (await firstWrite.getByTestId('tool-call-verdict').count()) === 1);
    await firstWrite.locator('summary').first().click();
    expect(await firstWrite.getByTestId('tool-call-verdict').textContent()).toBe('valid');
    const input = JSON.parse((await firstWrite.getByTestId('tool-call-input').textContent()) ?? 'null') as { path: string; content: string };
    expect(typeof input.path).toBe('string');
    expect(typeof input.content).toBe('string');
    // write_file's output says what it wrote: the path and the size of the content shown as input.
    const output = JSON.parse((await firstWrite.getByTestId('tool-call-output').textContent()) ?? 'null') as { path: string; bytes: number };
    expect(output).toMatchObject({ path: input.path, bytes: Buffer.byteLength(input.content) });
    const opened = await firstWrite.locator('.tool-event pre.fields').first().textContent();
    expect(opened).toContain('"tool": "write_file"');
    expect(opened).toContain('tool_use_id');
    // The model's text, per turn (GET /v1/runs/:id/turns).
    expect(await timeline.getByTestId('model-text').count()).toBeGreaterThan(0);

    const run = await fleet.fleet.store.getRun(runId);
    expect(await page.getByTestId('cost').textContent()).toMatch(/^\$\d+\.\d+$/);
    expect(run?.costMicroUsd).toBeGreaterThan(0);
    const siteLink = await page.getByTestId('site-link').getAttribute('href');
    expect(siteLink).toBe(`${fleet.sitesUrl}/sites/${runId}/`);
    // The page's head in the picture (opening the tool call scrolled down to it).
    await page.evaluate(() => document.scrollingElement.scrollTo(0, 0));
    await page.screenshot({ path: join(DOCS, 'console-run.png'), fullPage: false });
  }, SLOW * 2);

  it('answers the question a run asked, and the run goes on to its end', async () => {
    const created = await fleet.submit({ prompt: 'A portfolio site; ask me about colours.', options: { scenario: 'ask_user' } });
    expect((await fleet.waitForRun(created.id, SLOW)).status).toBe('waiting_for_input');
    await page.goto(`${consoleUrl}/#/runs/${created.id}`);
    await page.getByTestId('question').waitFor({ timeout: SLOW });
    expect(await page.getByTestId('question').textContent()).toBe('Which color scheme do you prefer?');
    await page.locator('textarea[name="answer"]').fill('Warm colours, please.');
    await page.getByRole('button', { name: 'Answer' }).click();
    await until(async () => (await statusOnRunPage()) === 'succeeded');
    expect(await statusOnRunPage()).toBe('succeeded');
    expect(await page.getByTestId('timeline').locator('[data-event="input-receive"]').count()).toBe(1);
    const answered = fleet.simulator.requests.some((request) => JSON.stringify(request.body).includes('Warm colours, please.'));
    expect(answered).toBe(true);
  }, SLOW * 2);

  it('cancels a run, and links its trace through the configured template', async () => {
    const traceId = '4bf92f3577b34da6a3ce929d0e0e4736';
    const created = await fleet.submit({ prompt: 'A page that will be cancelled.', options: { scenario: 'ask_user' }, traceId });
    await fleet.waitForRun(created.id, SLOW);
    await page.goto(`${consoleUrl}/#/runs/${created.id}`);
    await page.getByTestId('trace-link').waitFor({ timeout: SLOW });
    expect(await page.getByTestId('trace-link').getAttribute('href')).toBe(TRACE_TEMPLATE.replace('{traceId}', traceId));
    await page.getByRole('button', { name: 'Cancel run' }).click();
    await until(async () => (await statusOnRunPage()) === 'cancelled');
    expect(await statusOnRunPage()).toBe('cancelled');
    expect((await fleet.fleet.store.getRun(created.id))?.status).toBe('cancelled');
  }, SLOW);

  it('resumes a run that failed on a simulated model outage, then reruns it', async () => {
    const runId = newRunId();
    // Two answers, then the model API answers 503 to every attempt of the third turn.
    fleet.simulator.faults.add([{ kind: 'slow', delayMs: 0, runId, count: 2 }, { kind: 'server_error', status: 503, runId, count: 5 }]);
    await fleet.submit({ runId, prompt: 'A page built through a model outage.' });
    expect((await fleet.waitForRun(runId, SLOW)).error?.code).toBe('model_unavailable');
    const journalBefore = await fleet.fleet.store.getWriteJournal(runId);
    await page.goto(`${consoleUrl}/#/runs/${runId}`);
    await page.getByTestId('resume').waitFor({ timeout: SLOW });
    await page.getByTestId('resume').click();
    await until(async () => (await statusOnRunPage()) === 'succeeded');
    expect(await statusOnRunPage()).toBe('succeeded');
    // Followed live again after the resume: the reopen and the second end are on the timeline.
    await until(async () => (await page.getByTestId('timeline').locator('[data-event="run-end"]').count()) === 2);
    expect(await page.getByTestId('timeline').locator('[data-event="run-reopen"]').count()).toBe(1);
    expect(await page.getByTestId('timeline').locator('[data-event="run-end"]').count()).toBe(2);
    // No answered turn was asked twice (each answered request has a transcript of its own length),
    // and the writes before the outage stand as they were, once.
    const answered = fleet.simulator.requests.filter((request) => request.headers['x-buildfleet-run-id'] === runId && request.status === 200);
    const lengths = answered.map((request) => ((request.body as { messages: unknown[] }).messages ?? []).length);
    expect(new Set(lengths).size).toBe(lengths.length);
    expect((await fleet.fleet.store.getWriteJournal(runId)).slice(0, journalBefore.length)).toEqual(journalBefore);

    await page.getByTestId('rerun').click();
    await until(async () => !page.url().endsWith(runId));
    const rerunId = /#\/runs\/(run_[A-Za-z0-9]+)$/.exec(page.url())?.[1];
    expect(rerunId).toBeDefined();
    await page.getByTestId('rerun-of').waitFor({ timeout: SLOW });
    expect(await page.getByTestId('rerun-of').textContent()).toBe(runId);
    await until(async () => (await statusOnRunPage()) === 'succeeded');
    expect(await statusOnRunPage()).toBe('succeeded');
    expect(await fleet.fleet.store.getRun(rerunId!)).toMatchObject({ prompt: 'A page built through a model outage.', rerunOf: runId });
  }, SLOW * 3);

  it('lists the runs with their status and cost, and filters them by status', async () => {
    await page.goto(`${consoleUrl}/#/`);
    const rows = page.locator('[data-testid="runs"] tbody tr[data-run]');
    await until(async () => (await rows.count()) >= 3);
    expect(await rows.count()).toBeGreaterThanOrEqual(3);
    // Costs are read per run; wait until the succeeded ones show theirs.
    await until(async () => !(await page.locator('[data-testid="runs"] tbody').textContent())?.includes('–'));
    await page.screenshot({ path: join(DOCS, 'console-runs.png'), fullPage: false });
    await page.locator('select[name="status"]').selectOption('cancelled');
    await until(async () => (await rows.count()) === 1);
    expect(await rows.locator('[data-status]').allTextContents()).toEqual(['cancelled']);
  }, SLOW);

  it('refuses a request that comes from another origin of the same host', async () => {
    const waiting = await fleet.submit({ prompt: 'A run another origin tries to cancel.', options: { scenario: 'ask_user' } });
    await fleet.waitForRun(waiting.id, SLOW);
    const other = await browser.newPage();
    // The page shares the browser (and so the console's cookie, sent to same-site requests even
    // with SameSite=Strict: another port of one host is the same site). It posts a form, which
    // needs no CORS permission, to the console's cancel endpoint.
    await other.goto(otherOriginUrl);
    await other.evaluate(({ target }) => {
      const form = document.createElement('form');
      form.method = 'POST';
      form.action = target;
      document.body.append(form);
      form.submit();
    }, { target: `${consoleUrl}/api/v1/runs/${waiting.id}/cancel` });
    await other.waitForURL(`${consoleUrl}/api/v1/runs/${waiting.id}/cancel`, { timeout: SLOW });
    expect(await other.locator('body').textContent()).toContain('console_cross_origin_refused');
    expect((await fleet.fleet.store.getRun(waiting.id))?.status).toBe('waiting_for_input');
    // A script there can send a request too, but cannot read the answer, nor make the console act.
    await other.goto(otherOriginUrl);
    const outcome = await other.evaluate(async ({ target }) => {
      try {
        await fetch(target, { method: 'POST', credentials: 'include', mode: 'no-cors' });
        return 'sent';
      } catch {
        return 'blocked';
      }
    }, { target: `${consoleUrl}/api/v1/runs/${waiting.id}/cancel` });
    expect(['sent', 'blocked']).toContain(outcome);
    expect((await fleet.fleet.store.getRun(waiting.id))?.status).toBe('waiting_for_input');
    await other.close();
  }, SLOW);

  it("shows an admin the fleet: resets a tripped tenant scope, shows queue depths and workers, opens Bull Board", async () => {
    // Tenant noisy's outputs fail the output contract 20 times in a row: its scope trips, through
    // the same Redis script a tool worker records each outcome with.
    const killSwitch = KillSwitch.forFleet(fleet.fleet);
    const scopeId = 'tenant:noisy';
    for (let index = 0; index < 20; index += 1) {
      await killSwitch.recordOutcome({
        tool: 'fetch_url_live',
        valid: false,
        reason: 'unexpected_content_type:image/svg+xml',
        runId: 'run_noisy0000000001',
        tenant: 'noisy',
        upstream: upstreamOf({ tool: 'fetch_url_live', input: { url: 'http://upstream.test/logo.svg' }, sitesBaseUrl: fleet.sitesUrl }),
      });
    }
    const scopesInApi = async () => ((await adminKillSwitch()).scopes as Array<{ scope: string; mode: string }>).map((scope) => scope.scope);
    expect(await scopesInApi()).toContain(scopeId);

    const violations: string[] = [];
    page.on('console', (message) => {
      if (/Content Security Policy/i.test(message.text())) violations.push(message.text());
    });
    await page.goto(`${consoleUrl}/#/`);
    await page.getByRole('link', { name: 'Admin', exact: true }).click();
    const row = page.locator(`[data-testid="killswitch-scopes"] tr[data-scope="${scopeId}"]`);
    await row.waitFor({ timeout: SLOW });
    expect(['read_only', 'half_open']).toContain(await row.getAttribute('data-mode'));
    expect(await page.locator('[data-testid="killswitch-scopes"] tr[data-scope="fleet"]').getAttribute('data-mode')).toBe('read_write');
    // Queue depths and the workers connected to each queue (this fleet runs one model and one tool worker).
    const depths = page.getByTestId('queue-depths');
    await depths.locator('tr[data-queue="model"]').waitFor({ timeout: SLOW });
    const completed = Number(await depths.locator('tr[data-queue="model"] td[data-state="completed"]').textContent());
    expect(completed).toBeGreaterThan(0);
    expect(completed).toBe((await fleet.fleet.queues.model.getJobCounts('completed')).completed);
    expect(await depths.locator('tr[data-queue="model"] [data-testid="worker-count"]').textContent()).toBe('1');
    expect(await depths.locator('tr[data-queue="tool"] [data-testid="worker-count"]').textContent()).toBe('1');
    expect(await page.getByTestId('workers').textContent()).toContain(`:${process.pid}:model`);
    await page.screenshot({ path: join(DOCS, 'console-admin.png'), fullPage: false });

    // Reset, confirmed in the dialog (accepted by the handler above): cleared in the API, and on the page.
    await row.getByTestId('reset-scope').click();
    await until(async () => !(await scopesInApi()).includes(scopeId));
    expect(await scopesInApi()).not.toContain(scopeId);
    await until(async () => (await row.count()) === 0);
    expect(await row.count()).toBe(0);

    // Bull Board, on the console's origin, with the fleet's queues.
    await page.getByTestId('bull-board-link').click();
    await page.waitForURL(`${consoleUrl}/queues/`, { timeout: SLOW });
    for (const queue of ['model', 'tool']) await page.getByRole('link', { name: queue, exact: true }).first().waitFor({ timeout: SLOW });
    await page.getByRole('link', { name: 'model', exact: true }).first().click();
    await page.waitForURL(/\/queues\/queue\/model/, { timeout: SLOW });
    // The board's page and assets run under its CSP; the one thing refused is its web font from
    // another origin (docs/console.md#bull-board), which the board does without.
    expect(violations.filter((violation) => !violation.includes('https://fonts.googleapis.com/'))).toEqual([]);
    expect(await page.locator('#root').textContent()).toContain('model');
  }, SLOW);

  it('signs out: the session is gone from Redis and the sign-in is shown again', async () => {
    await page.goto(`${consoleUrl}/#/`);
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.locator('#api-key').waitFor({ timeout: SLOW });
    expect(await consoleSessionKeys()).toEqual([]);
    expect(await page.context().cookies(consoleUrl)).toEqual([]);
  }, SLOW);

  it('gives a key without the admin scope no fleet view, and 403 on Bull Board', async () => {
    const reader = await new ApiKeyStore({ redis: fleet.fleet.redis, keys: fleet.fleet.store.keys }).create({ tenant: 'default', scopes: ['runs:read', 'runs:write'] });
    await page.goto(consoleUrl);
    await page.locator('#api-key').fill(reader.token);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByTestId('who').waitFor({ timeout: SLOW });
    expect(await page.getByRole('link', { name: 'Admin', exact: true }).count()).toBe(0);
    await page.goto(`${consoleUrl}/#/admin`);
    await page.getByTestId('admin-only').waitFor({ timeout: SLOW });
    const board = await page.goto(`${consoleUrl}/queues/`);
    expect(board?.status()).toBe(403);
    expect(await page.locator('body').textContent()).toContain('console_admin_only');
    // The forward refuses the admin routes as the API does.
    const forwarded = await page.evaluate(async () => (await fetch('/api/v1/admin/killswitch')).status);
    expect(forwarded).toBe(403);
  }, SLOW);
});
