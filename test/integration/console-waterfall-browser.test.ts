// The run page's waterfall and timeline times, search by run id on the runs list, and phone width,
// in a real Chromium over a whole in-process fleet (real Redis, the simulator through the real SDK
// over HTTP, real workers, the API and the console on loopback ports): a finished run that was
// refused once with a 429 shows a bar for each model call (with its time to first token) and each
// tool call with their durations, the failed call and its rate-limit wait, the critical path and
// the trace link; a run that asked the user shows the wait for the answer; each timeline line has
// its time, and the lines that end something their duration; a run id typed on the runs list opens
// its run, and one that names no run says so; at 390 px neither the runs list nor a run page (one
// with a long "rerun of" id included) scrolls sideways. Takes the screenshot console-waterfall.png:
// into a temporary folder, so a test run leaves the checkout as it found it, or into docs/ with
// BUILDFLEET_UPDATE_SCREENSHOTS=1 (as console-browser.test.ts does).
//
// Skipped, with a printed reason, when no Chromium is installed (test/support/chromium.ts).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { newRunId } from '../../src/engine/index.js';
import { layoutWaterfall, type WaterfallEvent } from '../../console/src/waterfall-layout.js';
import { formatDuration } from '../../console/src/format-time-span.js';
import { chromiumForTests } from '../support/chromium.js';
import { startInProcessFleet, type InProcessFleet } from '../support/in-process-fleet.js';
import { until } from '../support/until.js';

// What the functions handed to page.evaluate use inside the page (this project compiles without the DOM library).
declare const document: any;

const binary = await chromiumForTests('console-waterfall-browser');
const TRACE_TEMPLATE = 'http://127.0.0.1:16686/trace/{traceId}';
const SCREENSHOTS =
  process.env.BUILDFLEET_UPDATE_SCREENSHOTS === '1'
    ? join(import.meta.dirname, '..', '..', 'docs')
    : mkdtempSync(join(tmpdir(), 'buildfleet-console-screenshots-'));
/** Generous: a loaded two-core machine runs this beside other suites. */
const SLOW = 60_000;
const PHONE = { width: 390, height: 844 };
const DESKTOP = { width: 1280, height: 900 };

let fleet: InProcessFleet;
let consoleUrl: string;
let browser: Browser;
let page: Page;

beforeAll(async () => {
  if (!binary) return;
  fleet = await startInProcessFleet({
    label: 'consolewaterfall',
    console: true,
    env: { BUILDFLEET_TRACE_URL_TEMPLATE: TRACE_TEMPLATE, BUILDFLEET_RATE_LIMIT_PER_MINUTE: '0', BUILDFLEET_RETRY_BASE_MS: '50' },
    // Answers that take a moment to start and to write, so each model call has a time to first token.
    simulator: { ttftMs: 80, tokensPerSecond: 3000 },
  });
  consoleUrl = fleet.consoleUrl!;
  const { chromium } = await import('playwright-core');
  browser = await chromium.launch({ executablePath: binary, headless: true, chromiumSandbox: false, env: { PATH: process.env.PATH ?? '/usr/bin:/bin' } });
  page = await browser.newPage({ viewport: DESKTOP });
  await page.goto(consoleUrl);
  await page.locator('#api-key').fill(fleet.apiKey);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByTestId('who').waitFor({ timeout: SLOW });
}, SLOW * 2);

afterAll(async () => {
  await browser?.close();
  await fleet?.close();
  if (process.env.BUILDFLEET_UPDATE_SCREENSHOTS !== '1') rmSync(SCREENSHOTS, { recursive: true, force: true });
});

/** A request to the API as a client with the fleet's (admin) key. */
async function api<T>(path: string, init: { method?: string; body?: unknown } = {}): Promise<T> {
  const response = await fetch(`${fleet.apiUrl}${path}`, {
    method: init.method ?? 'GET',
    headers: { authorization: `Bearer ${fleet.apiKey}`, accept: 'application/json', ...(init.body ? { 'content-type': 'application/json' } : {}) },
    ...(init.body ? { body: JSON.stringify(init.body) } : {}),
  });
  expect(response.status, path).toBeLessThan(300);
  return (await response.json()) as T;
}

const runEvents = (runId: string) => api<WaterfallEvent[]>(`/v1/runs/${runId}/events`);

interface ShownBar {
  kind: string;
  step: number;
  status: string;
  lane: number;
  lanes: number;
  critical: boolean;
  durationMs: number;
  firstTokenMs: number | null;
  toolUseId: string | null;
  label: string;
  duration: string;
}

/** The waterfall's rows as the page shows them. */
async function shownBars(): Promise<ShownBar[]> {
  return (await page.getByTestId('waterfall-bar').evaluateAll((rows) =>
    rows.map((row) => {
      const element = row as { dataset: Record<string, string | undefined>; querySelector(selector: string): { textContent: string } | null };
      const data = element.dataset;
      return {
        kind: data.kind,
        step: Number(data.step),
        status: data.status,
        lane: Number(data.lane),
        lanes: Number(data.lanes),
        critical: data.critical === 'true',
        durationMs: Number(data.durationMs),
        firstTokenMs: data.firstTokenMs === undefined ? null : Number(data.firstTokenMs),
        toolUseId: data.toolUseId ?? null,
        label: element.querySelector('.wf-name')?.textContent ?? '',
        duration: element.querySelector('[data-testid="waterfall-duration"]')?.textContent ?? '',
      };
    }),
  )) as ShownBar[];
}

/** Whether the page scrolls sideways (the waterfall's own box may; the page may not). */
const scrollsSideways = () => page.evaluate(() => document.documentElement.scrollWidth > document.documentElement.clientWidth) as Promise<boolean>;

/** Opens a run's page and waits until its stream has ended (every event shown). */
async function openEndedRun(runId: string): Promise<void> {
  await page.goto(`${consoleUrl}/#/runs/${runId}`);
  await until(
    `the stream of ${runId} to end`,
    async () =>
      (await page
        .getByTestId('stream-state')
        .textContent()
        .catch(() => null)) === 'ended',
  );
}

describe.skipIf(!binary)('the run waterfall, timeline times and run id search in a real Chromium', () => {
  let builtRunId: string;

  it(
    "lays a finished run out in time: model calls with their first token, tool calls, the 429's retry and wait, the critical path",
    async () => {
      builtRunId = newRunId();
      const traceId = '0af7651916cd43dd8448eb211c80319c';
      // The run's first model call is refused with a 429 and a retry-after: it waits, then goes on.
      fleet.simulator.faults.add({ kind: 'rate_limit', runId: builtRunId, retryAfterMs: 300 });
      await fleet.submit({ runId: builtRunId, prompt: 'A landing page for a bakery called Harbor Lights.', traceId });
      expect((await fleet.waitForRun(builtRunId, SLOW)).status).toBe('succeeded');
      const events = await runEvents(builtRunId);
      await page.setViewportSize(DESKTOP);
      await openEndedRun(builtRunId);
      await page.getByTestId('waterfall').waitFor({ timeout: SLOW });
      const bars = await shownBars();

      // A bar per model call: the refused one, then each answer with its time to first token.
      const answers = events.filter((event) => event.event === 'model-call-end');
      const refusals = events.filter((event) => event.event === 'model-call-fail');
      expect(refusals).toHaveLength(1);
      expect(refusals[0]).toMatchObject({ status: 429, outcome: 'rate_limited' });
      const models = bars.filter((bar) => bar.kind === 'model');
      expect(models.filter((bar) => bar.status === 'ok')).toHaveLength(answers.length);
      expect(models.filter((bar) => bar.status === 'failed')).toHaveLength(1);
      expect(answers.length).toBeGreaterThan(3);
      for (const answer of answers) {
        expect(typeof answer.duration_ms).toBe('number');
        expect(typeof answer.first_token_ms).toBe('number');
        expect(answer.first_token_ms as number).toBeLessThanOrEqual(answer.duration_ms as number);
      }
      for (const model of models.filter((bar) => bar.status === 'ok')) {
        expect(model.firstTokenMs).not.toBeNull();
        expect(model.firstTokenMs!).toBeLessThanOrEqual(model.durationMs);
        expect(model.duration).toBe(formatDuration(model.durationMs));
      }
      // The retry after the 429 waited for its retry-after, and says why.
      const waits = bars.filter((bar) => bar.kind === 'wait');
      const rateLimitWait = events.find((event) => event.event === 'model-rate-limit-wait');
      expect(rateLimitWait).toBeDefined();
      expect(waits).toHaveLength(1);
      expect(waits[0]!.label).toContain('rate-limit wait');
      expect(waits[0]!.durationMs).toBe(rateLimitWait!.wait_ms);

      // A bar per tool call, with the duration its end reports and the verdict of its output.
      const toolEnds = events.filter((event) => event.event === 'tool-call-end');
      const tools = bars.filter((bar) => bar.kind === 'tool');
      expect(tools.map((bar) => bar.toolUseId).sort()).toEqual(toolEnds.map((event) => String(event.tool_use_id)).sort());
      for (const end of toolEnds) {
        const bar = tools.find((tool) => tool.toolUseId === end.tool_use_id)!;
        expect(bar.durationMs).toBe(end.duration_ms);
        expect(bar.duration).toBe(formatDuration(end.duration_ms as number));
      }
      await until(
        'the verdicts in the notes',
        async () => (await page.locator('[data-testid="waterfall-bar"][data-kind="tool"] .wf-note').first().textContent())?.includes('valid') ?? false,
      );

      // The page draws what the layout makes of the run's events: the same bars, lanes and critical path.
      const expected = layoutWaterfall({ events });
      expect(bars.map((bar) => [bar.kind, bar.step, bar.status, bar.lane, bar.lanes, bar.critical])).toEqual(
        expected.bars.map((bar) => [bar.kind, bar.step, bar.status, bar.lane, bar.lanes, bar.critical]),
      );
      // The critical path runs back from the last answer to the refused first call.
      expect(bars.filter((bar) => bar.critical).length).toBeGreaterThan(answers.length);
      expect(models.every((bar) => bar.critical)).toBe(true);
      expect(await page.locator('[data-testid="waterfall-marker"][data-kind="phase"]').count()).toBe(
        events.filter((event) => event.event === 'phase-change').length,
      );
      expect(await page.getByTestId('waterfall-trace-link').getAttribute('href')).toBe(TRACE_TEMPLATE.replace('{traceId}', traceId));

      // The run's head and its waterfall in the picture.
      await page.evaluate(() => document.scrollingElement.scrollTo(0, 0));
      await page.screenshot({ path: join(SCREENSHOTS, 'console-waterfall.png'), fullPage: false });
    },
    SLOW * 2,
  );

  it(
    'shows each event of the timeline with its time, and how long what it ends took',
    async () => {
      const events = await runEvents(builtRunId);
      const timeline = page.getByTestId('timeline');
      const times = (await timeline
        .getByTestId('event-time')
        .evaluateAll((elements) =>
          elements.map((element) => [
            (element as { getAttribute(name: string): string }).getAttribute('datetime'),
            (element as { textContent: string }).textContent,
          ]),
        )) as Array<[string, string]>;
      // One per line: tool calls are a line each (their first event's time), progress folds into one.
      expect(times.length).toBeGreaterThan(10);
      for (const [datetime, text] of times) {
        expect(events.some((event) => event.at === datetime)).toBe(true);
        expect(text).toMatch(/^\d{2}:\d{2}:\d{2}\.\d{3}$/);
      }
      const answerLines = timeline.locator('li.line[data-event="model-call-end"]');
      const answers = events.filter((event) => event.event === 'model-call-end');
      expect(await answerLines.count()).toBe(answers.length);
      expect(await answerLines.getByTestId('event-duration').allTextContents()).toEqual(answers.map((event) => formatDuration(event.duration_ms as number)));
      // The first write_file line is the call whose first event came first; its end says how long it took.
      const firstWriteId = events.find((event) => event.tool === 'write_file' && typeof event.tool_use_id === 'string')!.tool_use_id;
      const firstWrite = events.find((event) => event.event === 'tool-call-end' && event.tool_use_id === firstWriteId)!;
      const writeLine = timeline.locator('li.line[data-event="tool-call"][data-tool="write_file"]').first();
      expect(await writeLine.getByTestId('event-duration').textContent()).toBe(formatDuration(firstWrite.duration_ms as number));
      const end = events.find((event) => event.event === 'run-end')!;
      expect(await timeline.locator('li.line[data-event="run-end"]').getByTestId('event-duration').textContent()).toBe(
        formatDuration(Date.parse(end.at) - Date.parse(events[0]!.at)),
      );
    },
    SLOW,
  );

  it(
    "shows the wait for the user's answer on the waterfall",
    async () => {
      const created = await fleet.submit({ prompt: 'A portfolio site; ask me about colours.', options: { scenario: 'ask_user' } });
      expect((await fleet.waitForRun(created.id, SLOW)).status).toBe('waiting_for_input');
      await api(`/v1/runs/${created.id}/input`, { method: 'POST', body: { text: 'Warm browns and cream.' } });
      expect((await fleet.waitForRun(created.id, SLOW)).status).toBe('succeeded');
      await openEndedRun(created.id);
      const user = page.locator('[data-testid="waterfall-bar"][data-kind="user"]');
      await user.waitFor({ timeout: SLOW });
      expect(await user.count()).toBe(1);
      expect(await user.getAttribute('data-status')).toBe('ok');
      const events = await runEvents(created.id);
      const asked = events.find((event) => event.event === 'input-wait')!;
      const answered = events.find((event) => event.event === 'input-receive')!;
      expect(Number(await user.getAttribute('data-duration-ms'))).toBe(Date.parse(answered.at) - Date.parse(asked.at));
      expect(await page.locator('li.line[data-event="input-receive"]').getByTestId('event-duration').textContent()).toBe(
        formatDuration(Date.parse(answered.at) - Date.parse(asked.at)),
      );
    },
    SLOW * 2,
  );

  it(
    'opens a run by its id from the runs list, and says when there is no such run',
    async () => {
      await page.goto(`${consoleUrl}/#/`);
      const box = page.locator('input[name="run-id"]');
      await box.waitFor({ timeout: SLOW });
      await box.fill(`  ${builtRunId} `);
      await page.getByRole('button', { name: 'Open' }).click();
      await page.waitForURL(new RegExp(`#/runs/${builtRunId}$`), { timeout: SLOW });
      await page.getByTestId('waterfall').waitFor({ timeout: SLOW });

      const missing = newRunId();
      await page.goto(`${consoleUrl}/#/`);
      await box.fill(missing);
      await page.getByRole('button', { name: 'Open' }).click();
      await page.getByTestId('run-id-search-message').waitFor({ timeout: SLOW });
      expect(await page.getByTestId('run-id-search-message').textContent()).toContain(`No run ${missing}`);
      expect(new URL(page.url()).hash).toBe('#/');
      await box.fill('bakery');
      await page.getByRole('button', { name: 'Open' }).click();
      await until(
        'the message for what is no run id',
        async () => (await page.getByTestId('run-id-search-message').textContent())?.includes('is not a run id') ?? false,
      );
    },
    SLOW,
  );

  it(
    'does not scroll sideways at phone width: the runs list, and a run page with a long "rerun of" id',
    async () => {
      // The longest id a run may have (src/domain/ids.ts), rerun: its page shows the long id as "rerun of".
      const longId = `run_${'Harbor9Lights'.repeat(5).slice(0, 64)}`;
      await fleet.submit({ runId: longId, prompt: 'A page whose run id is as long as ids go.' });
      expect((await fleet.waitForRun(longId, SLOW)).status).toBe('succeeded');
      const rerun = await api<{ id: string }>(`/v1/runs/${longId}/rerun`, { method: 'POST', body: {} });
      expect((await fleet.waitForRun(rerun.id, SLOW)).status).toBe('succeeded');

      await page.setViewportSize(PHONE);
      try {
        await page.goto(`${consoleUrl}/#/`);
        await page.locator('[data-testid="runs"] tbody tr[data-run]').first().waitFor({ timeout: SLOW });
        expect(await scrollsSideways()).toBe(false);

        await openEndedRun(rerun.id);
        await page.getByTestId('rerun-of').waitFor({ timeout: SLOW });
        expect(await page.getByTestId('rerun-of').textContent()).toBe(longId);
        await page.getByTestId('waterfall').waitFor({ timeout: SLOW });
        expect(await scrollsSideways()).toBe(false);
        // The waterfall keeps its width and scrolls inside its own box instead.
        const box = (await page.locator('.wf-scroll').evaluate((element) => ({ scroll: element.scrollWidth, client: element.clientWidth }))) as {
          scroll: number;
          client: number;
        };
        expect(box.scroll).toBeGreaterThan(box.client);

        await openEndedRun(longId);
        await page.getByTestId('waterfall').waitFor({ timeout: SLOW });
        expect(await scrollsSideways()).toBe(false);
        // A tool call opened to its input and output stays inside the page too.
        await page.locator('li.line[data-event="tool-call"] summary').first().click();
        await page.getByTestId('tool-call-payload').first().waitFor({ timeout: SLOW });
        expect(await scrollsSideways()).toBe(false);
      } finally {
        await page.setViewportSize(DESKTOP);
      }
    },
    SLOW * 2,
  );
});
