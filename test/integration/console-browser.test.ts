// The run console in a real Chromium, over a whole in-process fleet (real Redis, the simulator
// through the real SDK, real workers, the API and the console on loopback ports): sign in with an
// API key, submit a build and watch it finish on its run page without a reload, open a tool call,
// answer an ask_user question, cancel a run, resume a run that failed on a simulated model outage
// and rerun it, follow a run resumed through the API while its page stays open, read tool retries
// and webhook deliveries in the timeline, follow the site and trace links, filter and search the
// runs list (kept in the URL), and as an admin reset a tripped kill-switch scope, read the queue
// depths and workers and open Bull Board (which a key without the admin scope neither sees nor
// opens) — and check that the key is nowhere page JavaScript can read it, and that a page of
// another origin on the same host (as the sites origin is) cannot make the console act. The pages
// the other browser tests do not show at phone width are checked at 390 × 844 where each is shown
// (the sign-in, a new build's form, a run's answer form, a failed run's resume and rerun, the admin
// page, and its refusal to a key without the admin scope): the document does not scroll sideways,
// and the page's controls are within the screen's width and work there. Takes the
// screenshots console-runs.png, console-run.png and console-admin.png: into a temporary folder, so a
// test run leaves the checkout as it found it, or into docs/ with BUILDFLEET_UPDATE_SCREENSHOTS=1
// (how the docs' pictures are refreshed on purpose).
//
// Skipped, with a printed reason, when no Chromium is installed (test/support/chromium.ts).
import type { AddressInfo } from 'node:net';
import { createServer, type Server } from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Locator, Page } from 'playwright-core';
import { ApiKeyStore } from '../../src/auth/api-key-store.js';
import { newRunId } from '../../src/engine/index.js';
import { KillSwitch } from '../../src/safety/kill-switch.js';
import { upstreamOf } from '../../src/safety/kill-switch-scope.js';
import { startTracing } from '../../src/telemetry/tracing.js';
import { chromiumForTests } from '../support/chromium.js';
import { startInProcessFleet, type InProcessFleet } from '../support/in-process-fleet.js';
import { until } from '../support/until.js';

// What the functions handed to page.evaluate use inside the page (this project compiles without the DOM library).
declare const document: any;
declare const localStorage: object;
declare const sessionStorage: object;

const binary = await chromiumForTests('console-browser');
const TRACE_TEMPLATE = 'http://127.0.0.1:16686/trace/{traceId}';
const WEBHOOK_SECRET = 'test-webhook-fleet-secret-0123456789abcdef';
const SCREENSHOTS = process.env.BUILDFLEET_UPDATE_SCREENSHOTS === '1' ? join(import.meta.dirname, '..', '..', 'docs') : mkdtempSync(join(tmpdir(), 'buildfleet-console-screenshots-'));
/** Generous: a loaded two-core machine runs this beside other suites. */
const SLOW = 60_000;
/** The screenshots' width, and a phone's (as the overview and waterfall browser tests use). */
const DESKTOP = { width: 1280, height: 860 };
const PHONE = { width: 390, height: 844 };

let fleet: InProcessFleet;
let consoleUrl: string;
let browser: Browser;
let page: Page;
/** Another origin on the same host (another port), as the sites origin is: same-site, cross-origin. */
let otherOrigin: Server;
let otherOriginUrl: string;
/** A webhook receiver and an OTLP collector in one: it answers 500 to a webhook's first delivery. */
let receiver: Server;
let receiverUrl: string;
const webhookAnswers: number[] = [500];
let tracing: { shutdown(): Promise<void> } | undefined;

beforeAll(async () => {
  if (!binary) return;
  receiver = createServer((request, response) => {
    request.resume();
    request.on('end', () => {
      const status = request.url === '/hook' ? (webhookAnswers.shift() ?? 200) : 200;
      response.writeHead(status, { 'content-type': 'application/json' }).end('{}');
    });
  });
  // Port 0: the kernel's own choice, so no other listener of the test can be handed the same one.
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
  // Tracing on, as in a deployment with a collector: a run the console submits gets the trace id
  // of the API's span (src/fleet/run-commands.ts), so its page links the trace.
  tracing = startTracing({ serviceName: 'buildfleet-console-test', endpoint: receiverUrl, exportDelayMs: 200 });
  fleet = await startInProcessFleet({
    label: 'consolebrowser',
    // Its port chosen with the API's and the sites' (freePorts).
    console: true,
    env: {
      BUILDFLEET_TRACE_URL_TEMPLATE: TRACE_TEMPLATE,
      BUILDFLEET_RATE_LIMIT_PER_MINUTE: '0',
      BUILDFLEET_RETRY_BASE_MS: '50',
      BUILDFLEET_WEBHOOK_SECRET: WEBHOOK_SECRET,
      // The loopback receiver is the operator's exception, as a development receiver would be.
      BUILDFLEET_WEBHOOK_ALLOWLIST: receiverUrl,
      BUILDFLEET_WEBHOOK_BACKOFF_MS: '50',
    },
    // Each model answer takes a moment, so a build lasts a few seconds: long enough to be watched.
    simulator: { latencyMs: { min: 250, max: 350 } },
  });
  consoleUrl = fleet.consoleUrl!;
  otherOrigin = createServer((_request, response) => response.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><title>other origin</title>'));
  await new Promise<void>((resolve) => otherOrigin.listen(0, '127.0.0.1', resolve));
  otherOriginUrl = `http://127.0.0.1:${(otherOrigin.address() as AddressInfo).port}`;
  const { chromium } = await import('playwright-core');
  browser = await chromium.launch({ executablePath: binary, headless: true, chromiumSandbox: false, env: { PATH: process.env.PATH ?? '/usr/bin:/bin' } });
  page = await browser.newPage({ viewport: DESKTOP });
  // The cancel button asks for confirmation.
  page.on('dialog', (dialog) => void dialog.accept());
}, SLOW);

afterAll(async () => {
  await browser?.close();
  await new Promise((resolve) => otherOrigin?.close(resolve));
  await fleet?.close();
  await tracing?.shutdown();
  await new Promise((resolve) => receiver?.close(resolve));
  if (process.env.BUILDFLEET_UPDATE_SCREENSHOTS !== '1') rmSync(SCREENSHOTS, { recursive: true, force: true });
});

const statusOnRunPage = () => page.locator('.run-head [data-status]').getAttribute('data-status');
/** Waits until the run page shows this status. */
const untilStatus = (status: string) => until(`the run page to show ${status}`, async () => (await statusOnRunPage()) === status);

/** A GET of the API as a client with the fleet's (admin) key. */
async function apiGet<T>(path: string): Promise<T> {
  const response = await fetch(`${fleet.apiUrl}${path}`, { headers: { authorization: `Bearer ${fleet.apiKey}`, accept: 'application/json' } });
  expect(response.status, path).toBe(200);
  return (await response.json()) as T;
}

interface ApiEvent {
  id: string;
  event: string;
  step: number;
  tool_use_id?: string;
  tool?: string;
}

/** The run's events, as GET /v1/runs/:id/events answers them in JSON. */
const runEvents = (runId: string) => apiGet<ApiEvent[]>(`/v1/runs/${runId}/events`);

/** The ids of the runs GET /v1/runs lists with these filters (one page of 100). */
async function listedIds(filters: Record<string, string>): Promise<string[]> {
  const page = await apiGet<{ runs: Array<{ id: string }> }>(`/v1/runs?${new URLSearchParams({ limit: '100', ...filters })}`);
  return page.runs.map((run) => run.id);
}

const runsRows = () => page.locator('[data-testid="runs"] tbody tr[data-run]');
/** The ids of the runs the runs list shows, in order. */
const shownIds = async () => (await runsRows().evaluateAll((rows) => rows.map((row) => (row as { dataset: { run: string } }).dataset.run))) as string[];

/** The kill switch's state, read from the API as an operator's client would. */
async function adminKillSwitch(): Promise<{ scopes: unknown[] }> {
  const response = await fetch(`${fleet.apiUrl}/v1/admin/killswitch`, { headers: { authorization: `Bearer ${fleet.apiKey}` } });
  expect(response.status).toBe(200);
  return (await response.json()) as { scopes: unknown[] };
}

/** Nothing a run did was done twice across its resume: every tool call of its events (read as a
 * client reads them) ended exactly once, its write journal holds no write twice, and the writes
 * before the outage stand as they were. A write repeated after the resume would be a second end
 * for one tool_use_id, or a second journal entry for one target. */
async function expectNoRepeatedEffect({ runId, journalBefore }: { runId: string; journalBefore: unknown[] }): Promise<void> {
  const events = await runEvents(runId);
  const callIds = new Set(events.filter((event) => event.event.startsWith('tool-call-') && typeof event.tool_use_id === 'string').map((event) => event.tool_use_id!));
  expect(callIds.size).toBeGreaterThan(0);
  const ends = new Map<string, number>();
  for (const event of events) if (event.event === 'tool-call-end') ends.set(event.tool_use_id!, (ends.get(event.tool_use_id!) ?? 0) + 1);
  expect(Object.fromEntries([...callIds].map((id) => [id, ends.get(id) ?? 0]))).toEqual(Object.fromEntries([...callIds].map((id) => [id, 1])));
  const journal = (await fleet.fleet.store.getWriteJournal(runId)) as Array<{ tool: string; kind: string; target: string }>;
  const writes = journal.map((entry) => `${entry.tool} ${entry.kind} ${entry.target}`);
  expect(writes.filter((write, index) => writes.indexOf(write) !== index)).toEqual([]);
  expect(journal.slice(0, journalBefore.length)).toEqual(journalBefore);
}

/** Runs `check` with the page at phone width, and puts the desktop width back however it ends. */
async function atPhoneWidth(check: () => Promise<void>): Promise<void> {
  await page.setViewportSize(PHONE);
  try {
    await check();
  } finally {
    await page.setViewportSize(DESKTOP);
  }
}

/** The document does not scroll sideways: whatever is wider than the screen scrolls in its own box. */
async function expectNoSidewaysScroll(where: string): Promise<void> {
  const width = (await page.evaluate(() => ({ scroll: document.documentElement.scrollWidth, client: document.documentElement.clientWidth }))) as {
    scroll: number;
    client: number;
  };
  expect(width.scroll, `${where}: the document's scroll width against its width`).toBeLessThanOrEqual(width.client);
}

/** Each control is shown, enabled where it can be, and whole within the screen's width. */
async function expectWithinScreen(controls: Locator[]): Promise<void> {
  for (const control of controls) {
    expect(await control.isVisible(), String(control)).toBe(true);
    expect(await control.isEnabled(), String(control)).toBe(true);
    const box = await control.boundingBox();
    expect(box, String(control)).not.toBeNull();
    expect(box!.x, String(control)).toBeGreaterThanOrEqual(0);
    expect(box!.x + box!.width, String(control)).toBeLessThanOrEqual(PHONE.width);
  }
}

async function consoleSessionKeys(): Promise<string[]> {
  return fleet.fleet.redis.keys(`${fleet.config.BUILDFLEET_PREFIX}:console:session:*`);
}

describe.skipIf(!binary)('the run console in a real Chromium', () => {
  it('signs in with an API key that page JavaScript can then read nowhere', async () => {
    await page.goto(consoleUrl);
    // At phone width: the form fits the screen, a refused key is said in place, and a good one signs in.
    await atPhoneWidth(async () => {
      await page.locator('#api-key').waitFor({ timeout: SLOW });
      await expectNoSidewaysScroll('the sign-in');
      await expectWithinScreen([page.locator('#api-key'), page.getByRole('button', { name: 'Sign in' })]);
      await page.locator('#api-key').fill('bf_not_a_key_of_this_fleet');
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.getByRole('alert').waitFor({ timeout: SLOW });
      expect(await page.getByRole('alert').textContent()).toContain('not valid');
      await expectNoSidewaysScroll('the sign-in with its refusal');
      await page.locator('#api-key').fill(fleet.apiKey);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.getByTestId('who').waitFor({ timeout: SLOW });
    });
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
    // At phone width: the prompt, every option (opened, then closed again) and the button fit the screen.
    await atPhoneWidth(async () => {
      await page.locator('#prompt').waitFor({ timeout: SLOW });
      const options = page.locator('.new-run details > summary');
      await options.click();
      const fields = ['model', 'maxTurns', 'budgetUsd', 'scenario'].map((name) => page.locator(`.new-run input[name="${name}"]`));
      await expectNoSidewaysScroll('the new-build form');
      await expectWithinScreen([page.locator('#prompt'), ...fields, page.getByRole('button', { name: 'Start the build' })]);
      await options.click();
    });
    await page.locator('#prompt').fill('A landing page for a bakery in Lisbon, with opening hours.');
    await page.getByRole('button', { name: 'Start the build' }).click();
    await page.waitForURL(/#\/runs\/run_/, { timeout: SLOW });
    const runId = new URL(page.url()).hash.slice('#/runs/'.length);
    await page.locator('.run-head [data-status]').waitFor({ timeout: SLOW });
    const firstSeen = await statusOnRunPage();
    // Seen before its end, so what follows arrived live on this page (no reload happens).
    expect(['queued', 'running']).toContain(firstSeen);
    await untilStatus('succeeded');
    expect((await fleet.fleet.store.getRun(runId))?.status).toBe('succeeded');
    await until('the stream to end', async () => (await page.getByTestId('stream-state').textContent()) === 'ended');

    const timeline = page.getByTestId('timeline');
    expect(await timeline.locator('[data-event="turn-start"]').count()).toBeGreaterThan(3);
    expect(await timeline.locator('[data-event="model-call-end"]').count()).toBeGreaterThan(3);
    expect(await timeline.locator('[data-event="phase-change"]').count()).toBeGreaterThan(0);
    expect(await timeline.locator('[data-event="run-end"]').textContent()).toContain('succeeded');
    const writes = timeline.locator('[data-event="tool-call"][data-tool="write_file"]');
    expect(await writes.count()).toBeGreaterThan(0);
    // A tool call opens to its input and output with the contract's verdict
    // (GET /v1/runs/:id/tool-calls), and to what its events carry.
    const firstWrite = writes.first();
    await until("the first write's verdict", async () => (await firstWrite.getByTestId('tool-call-verdict').count()) === 1);
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
    // Submitted through the console to an API that traces: the run has its trace, linked.
    expect(run?.traceId).toMatch(/^[0-9a-f]{32}$/);
    expect(await page.getByTestId('trace-link').getAttribute('href')).toBe(TRACE_TEMPLATE.replace('{traceId}', run!.traceId!));
    // The page's head in the picture (opening the tool call scrolled down to it).
    await page.evaluate(() => document.scrollingElement.scrollTo(0, 0));
    await page.screenshot({ path: join(SCREENSHOTS, 'console-run.png'), fullPage: false });
  }, SLOW * 2);

  it('answers the question a run asked, and the run goes on to its end', async () => {
    const created = await fleet.submit({ prompt: 'A portfolio site; ask me about colours.', options: { scenario: 'ask_user' } });
    expect((await fleet.waitForRun(created.id, SLOW)).status).toBe('waiting_for_input');
    await page.goto(`${consoleUrl}/#/runs/${created.id}`);
    await page.getByTestId('question').waitFor({ timeout: SLOW });
    expect(await page.getByTestId('question').textContent()).toBe('Which color scheme do you prefer?');
    // Answered at phone width: the question, its answer field and the buttons fit the screen.
    await atPhoneWidth(async () => {
      await expectNoSidewaysScroll('a run waiting for an answer');
      await expectWithinScreen([
        page.getByTestId('question'),
        page.locator('textarea[name="answer"]'),
        page.getByRole('button', { name: 'Answer' }),
        page.getByRole('button', { name: 'Cancel run' }),
      ]);
      await page.locator('textarea[name="answer"]').fill('Warm colours, please.');
      await page.getByRole('button', { name: 'Answer' }).click();
      await untilStatus('succeeded');
    });
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
    await untilStatus('cancelled');
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
    // Resumed at phone width: the error and both controls fit the screen.
    await atPhoneWidth(async () => {
      await expectNoSidewaysScroll('a failed run');
      await expectWithinScreen([page.locator('.run-error'), page.getByTestId('resume'), page.getByTestId('rerun')]);
      await page.getByTestId('resume').click();
      await untilStatus('succeeded');
    });
    // Followed live again after the resume: the reopen and the second end are on the timeline.
    await until('the second run-end on the timeline', async () => (await page.getByTestId('timeline').locator('[data-event="run-end"]').count()) === 2);
    expect(await page.getByTestId('timeline').locator('[data-event="run-reopen"]').count()).toBe(1);
    // No answered turn was asked twice (each answered request has a transcript of its own length).
    const answered = fleet.simulator.requests.filter((request) => request.headers['x-buildfleet-run-id'] === runId && request.status === 200);
    const lengths = answered.map((request) => ((request.body as { messages: unknown[] }).messages ?? []).length);
    expect(new Set(lengths).size).toBe(lengths.length);
    await expectNoRepeatedEffect({ runId, journalBefore });

    await page.getByTestId('rerun').click();
    await until('the page to move to the rerun', async () => !page.url().endsWith(runId));
    const rerunId = /#\/runs\/(run_[A-Za-z0-9]+)$/.exec(page.url())?.[1];
    expect(rerunId).toBeDefined();
    await page.getByTestId('rerun-of').waitFor({ timeout: SLOW });
    expect(await page.getByTestId('rerun-of').textContent()).toBe(runId);
    await untilStatus('succeeded');
    expect(await fleet.fleet.store.getRun(rerunId!)).toMatchObject({ prompt: 'A page built through a model outage.', rerunOf: runId });
  }, SLOW * 3);

  it('follows a run resumed through the API while its page stays open, without a reload', async () => {
    const runId = newRunId();
    fleet.simulator.faults.add([{ kind: 'slow', delayMs: 0, runId, count: 2 }, { kind: 'server_error', status: 503, runId, count: 5 }]);
    await fleet.submit({ runId, prompt: 'A page resumed by another client.' });
    expect((await fleet.waitForRun(runId, SLOW)).error?.code).toBe('model_unavailable');
    const journalBefore = await fleet.fleet.store.getWriteJournal(runId);
    await page.goto(`${consoleUrl}/#/runs/${runId}`);
    await page.getByTestId('resume').waitFor({ timeout: SLOW });
    await until("the failed run's stream to end", async () => (await page.getByTestId('stream-state').textContent()) === 'ended');
    // The resumed turn's job waits in the paused model queue, so the run stays `running` until the
    // page has shown it, however long the page takes to look.
    await fleet.fleet.queues.own.model.pause();
    try {
      const resumed = await fetch(`${fleet.apiUrl}/v1/runs/${runId}/resume`, { method: 'POST', headers: { authorization: `Bearer ${fleet.apiKey}` } });
      expect(resumed.status).toBe(202);
      await untilStatus('running');
      expect(await page.getByTestId('resume').count()).toBe(0);
      await until('the stream followed again', async () => (await page.getByTestId('stream-state').textContent()) === 'live');
    } finally {
      await fleet.fleet.queues.own.model.resume();
    }
    await untilStatus('succeeded');
    const timeline = page.getByTestId('timeline');
    await until('the second run-end on the timeline', async () => (await timeline.locator('[data-event="run-end"]').count()) === 2);
    expect(await timeline.locator('[data-event="run-reopen"]').count()).toBe(1);
    // The stream went on after the last event shown: none is on the timeline twice.
    const events = await runEvents(runId);
    for (const name of ['turn-start', 'model-call-end', 'phase-change']) {
      expect(await timeline.locator(`[data-event="${name}"]`).count(), name).toBe(events.filter((event) => event.event === name).length);
    }
    await expectNoRepeatedEffect({ runId, journalBefore });
  }, SLOW * 2);

  it('describes tool retries and webhook deliveries on the timeline', async () => {
    const created = await fetch(`${fleet.apiUrl}/v1/runs`, {
      method: 'POST',
      headers: { authorization: `Bearer ${fleet.apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ prompt: 'A page whose end is posted to a webhook.', webhook: { url: `${receiverUrl}/hook` } }),
    });
    expect(created.status).toBe(202);
    const runId = ((await created.json()) as { id: string }).id;
    // The receiver answers the first delivery 500 and the retry 200: two attempts, an event each.
    const deliveries = await until('both webhook attempts in the events', async () => {
      const events = (await runEvents(runId)).filter((event) => event.event.startsWith('webhook-'));
      return events.length >= 2 ? events : null;
    });
    expect(deliveries.map((event) => event.event)).toEqual(['webhook-fail', 'webhook-deliver']);
    // A retried tool call: the event a tool job writes when an attempt throws with attempts left
    // (src/tools/run-tool-job.ts), on one of the run's own calls. No simulator fault makes a tool
    // throw, so it is written here as the job would.
    const write = (await runEvents(runId)).find((event) => event.event === 'tool-call-end' && event.tool === 'write_file');
    expect(write).toBeDefined();
    await fleet.fleet.store.appendEvent({ run_id: runId, step: write!.step, event: 'tool-call-retry', tool: 'write_file', tool_use_id: String(write!.tool_use_id), level: 'warn', message: 'connect ECONNRESET', attempt: 1 });

    await page.goto(`${consoleUrl}/#/runs/${runId}`);
    const timeline = page.getByTestId('timeline');
    const failed = timeline.locator('[data-event="webhook-fail"] > details > summary');
    await failed.waitFor({ timeout: SLOW });
    expect(await failed.textContent()).toMatch(/^Webhook run\.ended not delivered · HTTP 500 · http_500 · attempt 1 of \d+ · will retry$/);
    expect(await timeline.locator('[data-event="webhook-deliver"] > details > summary').textContent()).toMatch(/^Webhook run\.ended delivered · HTTP 200 · attempt 2 of \d+$/);
    const retried = timeline.locator('[data-event="tool-call"]', { has: page.locator('[data-event="tool-call-retry"]') });
    await until('the retried call on the timeline', async () => (await retried.count()) === 1);
    expect(await retried.locator('summary').textContent()).toContain('retried 1× (connect ECONNRESET)');
    expect(await retried.getByTestId('tool-event-description').textContent()).toBe('write_file failed on attempt 1, retried: connect ECONNRESET');
    // Each is its own line, not a bare event name.
    expect(await timeline.locator('li.line[data-event="tool-call-retry"]').count()).toBe(0);
  }, SLOW);

  it('lists the runs with their status and cost, filters and searches them, and keeps the filters in the URL', async () => {
    await page.goto(`${consoleUrl}/#/`);
    const rows = runsRows();
    const hash = () => new URL(page.url()).hash;
    const sameIds = async (expected: string[]) => JSON.stringify(await shownIds()) === JSON.stringify(expected);
    await until('three runs listed', async () => (await rows.count()) >= 3);
    // Costs are read per run; wait until the succeeded ones show theirs.
    await until('the costs', async () => !(await page.locator('[data-testid="runs"] tbody').textContent())?.includes('–'));
    await page.screenshot({ path: join(SCREENSHOTS, 'console-runs.png'), fullPage: false });

    // The status applies at once.
    await page.locator('select[name="status"]').selectOption('cancelled');
    await until('the cancelled runs only', async () => hash() === '#/?status=cancelled' && (await rows.count()) === 1);
    expect(await rows.locator('[data-status]').allTextContents()).toEqual(['cancelled']);

    // Words of the prompt: the runs the API finds for them, the run resumed in the console and its rerun.
    await page.getByTestId('clear-filters').click();
    await until('the filters cleared', async () => hash() === '#/' && (await page.locator('select[name="status"]').inputValue()) === '');
    await page.locator('input[name="prompt"]').fill('outage');
    await page.getByRole('button', { name: 'Search' }).click();
    const outage = await listedIds({ prompt: 'outage' });
    expect(outage).toHaveLength(2);
    await until('the runs whose prompt says outage', () => sameIds(outage));
    expect(hash()).toBe('#/?prompt=outage');
    // The URL is the view: a reload shows the same runs, and the form the same filter.
    await page.reload();
    await until('the same runs after a reload', () => sameIds(outage));
    expect(await page.locator('input[name="prompt"]').inputValue()).toBe('outage');

    // A creation time range, opened from a link: the third newest run and those after it, then
    // those before it (`to` is exclusive), as the API lists them.
    const boundary = (await apiGet<{ runs: Array<{ createdAt: string }> }>('/v1/runs?limit=100')).runs[2]!.createdAt;
    await page.goto(`${consoleUrl}/#/?${new URLSearchParams({ from: boundary })}`);
    const since = await listedIds({ from: boundary });
    expect(since.length).toBeGreaterThanOrEqual(3);
    await until('the runs created from the boundary on', () => sameIds(since));
    expect(await page.locator('input[name="from"]').inputValue()).not.toBe('');
    // Another filter added in the form keeps the link's exact instant (the field shows seconds).
    await page.locator('input[name="prompt"]').fill('webhook');
    await page.getByRole('button', { name: 'Search' }).click();
    await until('the prompt added to the URL', async () => hash().includes('prompt=webhook'));
    expect(new URLSearchParams(hash().slice('#/?'.length)).get('from')).toBe(boundary);
    const sinceWebhook = await listedIds({ from: boundary, prompt: 'webhook' });
    expect(sinceWebhook).toHaveLength(1);
    expect(since).toContain(sinceWebhook[0]);
    await until('the run from the boundary whose prompt says webhook', () => sameIds(sinceWebhook));
    await page.goto(`${consoleUrl}/#/?${new URLSearchParams({ to: boundary })}`);
    const before = (await listedIds({ to: boundary })).slice(0, 20);
    expect(before.length).toBeGreaterThan(0);
    expect(before.filter((id) => since.includes(id))).toEqual([]);
    await until('the runs created before the boundary', () => sameIds(before));
    // A time typed in the form is the browser's local time. A range that ends before it starts is
    // the API's to refuse, and the page says so; none of the runs is from 2099.
    await page.locator('input[name="from"]').fill('2099-01-01T00:00:00');
    await page.getByRole('button', { name: 'Search' }).click();
    await until("the API's refusal", async () => (await page.getByRole('alert').count()) === 1);
    expect(await page.getByRole('alert').textContent()).toContain('query.from: must be before query.to');
    await page.locator('input[name="to"]').fill('');
    await page.getByRole('button', { name: 'Search' }).click();
    const typedInstant = await page.evaluate(() => new Date('2099-01-01T00:00:00').toISOString());
    await until('the typed time alone in the URL', async () => hash() === `#/?${new URLSearchParams({ from: typedInstant })}`);
    await until('no run listed', async () => (await page.getByText('No runs matching these filters').count()) === 1);
    expect(await rows.count()).toBe(0);

    // An admin names another tenant: its runs only, each linked to its run page (admin keys read
    // any tenant's run), with its cost.
    const other = await fleet.submit({ tenant: 'other', prompt: 'A run of another tenant.' });
    await fleet.waitForRun(other.id, SLOW);
    await page.goto(`${consoleUrl}/#/`);
    await until('the filters cleared', async () => (await page.locator('input[name="from"]').inputValue()) === '');
    await page.locator('input[name="tenant"]').fill('other');
    await page.getByRole('button', { name: 'Search' }).click();
    await until("tenant other's runs", () => sameIds([other.id]));
    expect(hash()).toBe('#/?tenant=other');
    expect(await rows.locator(`a[href="#/runs/${other.id}"]`).count()).toBe(1);
    await until("the other tenant's run cost", async () => /\$\d/.test((await rows.first().locator('td.number').innerText()) ?? ''));
    await rows.locator('a').first().click();
    await until("the other tenant's run page with its cost", async () => /\$\d/.test(await page.getByTestId('cost').innerText().catch(() => '')));
    expect(page.url()).toContain(`#/runs/${other.id}`);
  }, SLOW * 2);

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
    expect(completed).toBe((await fleet.fleet.queues.own.model.getJobCounts('completed')).completed);
    expect(await depths.locator('tr[data-queue="model"] [data-testid="worker-count"]').textContent()).toBe('1');
    expect(await depths.locator('tr[data-queue="tool"] [data-testid="worker-count"]').textContent()).toBe('1');
    expect(await page.getByTestId('workers').textContent()).toContain(`:${process.pid}:model`);
    await page.screenshot({ path: join(SCREENSHOTS, 'console-admin.png'), fullPage: false });

    await atPhoneWidth(async () => {
      // At phone width each table keeps its columns and scrolls in its own box, inside the screen.
      await expectNoSidewaysScroll('the admin page');
      await expectWithinScreen([page.getByTestId('bull-board-link')]);
      for (const table of ['killswitch-scopes', 'queue-depths', 'workers']) {
        const box = (await page.getByTestId(table).evaluate((element) => {
          const scroller = element.parentElement;
          const overflow = scroller.ownerDocument.defaultView.getComputedStyle(scroller).overflowX;
          return { overflow, right: scroller.getBoundingClientRect().right, scroll: scroller.scrollWidth, client: scroller.clientWidth };
        })) as { overflow: string; right: number; scroll: number; client: number };
        expect(['auto', 'scroll'], `the box of ${table} scrolls`).toContain(box.overflow);
        expect(box.right, table).toBeLessThanOrEqual(PHONE.width);
        if (table === 'queue-depths') expect(box.scroll, 'the queue depths scroll in their box').toBeGreaterThan(box.client);
      }
      // Reset, confirmed in the dialog (accepted by the handler above), from its column scrolled
      // into view within the table's box: cleared in the API, and on the page.
      await row.getByTestId('reset-scope').click();
      await until('the scope reset in the API', async () => !(await scopesInApi()).includes(scopeId));
      expect(await scopesInApi()).not.toContain(scopeId);
      await until('the scope gone from the page', async () => (await row.count()) === 0);
      expect(await row.count()).toBe(0);
      await expectNoSidewaysScroll('the admin page after the reset');
    });

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
    const signOut = page.waitForResponse((response) => response.request().method() === 'DELETE' && new URL(response.url()).pathname === '/session');
    await page.getByRole('button', { name: 'Sign out' }).click();
    // The sign-out's own answer removes the cookie.
    expect(await (await signOut).headerValue('set-cookie')).toMatch(/^bf_console=; Path=\/; Max-Age=0;/);
    await page.locator('#api-key').waitFor({ timeout: SLOW });
    expect(await consoleSessionKeys()).toEqual([]);
    // The cookie the browser still holds, if any, signs nobody in. A page request in flight at the
    // sign-out (the runs list refreshing) may land after the DELETE's clearing cookie and slide the
    // old one forward (console-server.ts requireSession); its session is gone from Redis, so the
    // next load is signed out, and that load clears it.
    await page.reload();
    await page.locator('#api-key').waitFor({ timeout: SLOW });
    expect(await page.getByTestId('who').count()).toBe(0);
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
    // Its runs list offers no tenant filter: only an admin may list another tenant.
    await page.locator('input[name="prompt"]').waitFor({ timeout: SLOW });
    expect(await page.locator('input[name="tenant"]').count()).toBe(0);
    await page.goto(`${consoleUrl}/#/admin`);
    await page.getByTestId('admin-only').waitFor({ timeout: SLOW });
    await atPhoneWidth(async () => {
      await expectNoSidewaysScroll('the admin page refused');
      await expectWithinScreen([page.getByTestId('admin-only'), page.getByRole('button', { name: 'Sign out' })]);
    });
    const board = await page.goto(`${consoleUrl}/queues/`);
    expect(board?.status()).toBe(403);
    expect(await page.locator('body').textContent()).toContain('console_admin_only');
    // The forward refuses the admin routes as the API does.
    const forwarded = await page.evaluate(async () => (await fetch('/api/v1/admin/killswitch')).status);
    expect(forwarded).toBe(403);
  }, SLOW);
});
