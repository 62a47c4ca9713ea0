// Reading finished runs once Redis no longer holds them (issue #21): a real build through the real
// queues (simulator over HTTP via the SDK, real Redis, real workers) is archived into a real
// PostgreSQL with the real archive step, its keys expire, and every read the API offers — the run,
// the listing with each filter, the events as JSON and as SSE, the published site — answers over
// HTTP exactly what it answered before. Then the listing's one cursor across both sources, with
// runs archived and expired between two pages.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiKeyStore } from '../../src/auth/api-key-store.js';
import type { RunRecord } from '../../src/engine/index.js';
import type { HistoryStore } from '../../src/history/history-store.js';
import type { RunArchive } from '../../src/history/run-archive.js';
import { siteStoreOf } from '../../src/sites/site-store-of-config.js';
import { archiveFinishedRun, type ArchiveDependencies, type ArchiveOutcome } from '../../src/workers/archive-worker.js';
import { promptHasWords } from '../../src/api/prompt-has-words.js';
import { startInProcessFleet, type InProcessFleet } from '../support/in-process-fleet.js';
import { createTestDatabase, type TestDatabase } from '../support/postgres.js';
import { waitForRunKeysToExpire } from '../support/run-keys.js';

let harness: InProcessFleet;
let database: TestDatabase;
let history: HistoryStore;
/** A key of another tenant, with every run scope but admin. */
let intruderKey: string;

beforeAll(async () => {
  database = await createTestDatabase('historyreads');
  // The tests archive each run themselves, with a retention of 1 ms: the fleet's own archive
  // worker, racing them with the configured retention, could set the keys' TTL back to days
  // right after theirs (a run's keys then never expired within a test's wait).
  harness = await startInProcessFleet({ label: 'historyreads', env: { DATABASE_URL: database.url }, archive: false });
  if (!harness.fleet.history) throw new Error('the fleet has no history store although DATABASE_URL is set');
  history = harness.fleet.history;
  ({ token: intruderKey } = await new ApiKeyStore({ redis: harness.fleet.redis, keys: harness.fleet.store.keys }).create({
    tenant: 'intruder',
    scopes: ['runs:read', 'runs:write'],
  }));
}, 120_000);
afterAll(async () => {
  await harness?.close();
  await database?.drop();
});

interface Answer {
  status: number;
  contentType: string | null;
  body: string;
}

async function fetchAnswer(url: string, { key = harness.apiKey, accept = 'application/json', method = 'GET' }: { key?: string; accept?: string; method?: string } = {}): Promise<Answer> {
  const response = await fetch(url, { method, headers: { authorization: `Bearer ${key}`, accept } });
  return { status: response.status, contentType: response.headers.get('content-type'), body: await response.text() };
}

async function api(path: string, options: { key?: string; accept?: string; method?: string } = {}): Promise<{ status: number; json: unknown }> {
  const answer = await fetchAnswer(`${harness.apiUrl}${path}`, options);
  return { status: answer.status, json: answer.body === '' ? null : (JSON.parse(answer.body) as unknown) };
}

interface ServerSentBlock {
  fields: Record<string, string>;
  /** The `data:` field as JSON. */
  data: unknown;
}

/** The whole SSE answer of a run that ended (the server closes it after `event: end`), block by
 * block, each `data:` parsed: JSON objects are compared as JSON (member order carries no meaning,
 * RFC 8259 §4, and PostgreSQL's jsonb keeps members in an order of its own). Heartbeat comments
 * depend on timing alone and are left out. */
async function sse(path: string): Promise<ServerSentBlock[]> {
  const answer = await fetchAnswer(`${harness.apiUrl}${path}`, { accept: 'text/event-stream' });
  expect(answer.status).toBe(200);
  expect(answer.contentType).toMatch(/^text\/event-stream/);
  return answer.body
    .split('\n\n')
    .filter((block) => block.trim() !== '' && block !== ': heartbeat')
    .map((block) => {
      const fields: Record<string, string> = {};
      for (const line of block.split('\n')) {
        const colon = line.indexOf(': ');
        if (colon > 0) fields[line.slice(0, colon)] = line.slice(colon + 2);
      }
      const { data, ...rest } = fields;
      return { fields: rest, data: data === undefined ? null : (JSON.parse(data) as unknown) };
    });
}

/** What the real archive step needs, with a retention of its own. */
function archiveDependencies(retentionMs: number): ArchiveDependencies {
  return { store: harness.fleet.store, queues: harness.fleet.queues, history, sites: siteStoreOf(harness.config), retentionMs };
}

/** Archives the run with the real archive step and a retention of 1 ms, then waits until Redis
 * holds no key of it. `expected`: 'already-archived' for a run archived before (only the expiry
 * is new). */
async function archiveAndExpire(runId: string, expected: ArchiveOutcome = 'archived'): Promise<void> {
  expect(await archiveFinishedRun(archiveDependencies(1), runId)).toBe(expected);
  await waitForRunKeysToExpire({ redis: harness.fleet.redis, keys: harness.fleet.store.keys, runId });
}

async function waitForRunEndEvent(runId: string): Promise<void> {
  for (let attempt = 0; ; attempt += 1) {
    const events = await harness.fleet.store.readEvents(runId, '-', 10_000);
    if (events.some((event) => event.event === 'run-end')) return;
    if (attempt > 3_000) throw new Error(`${runId} has no run-end event`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

describe('a finished build read back from history once its Redis keys are gone', () => {
  it('answers every read exactly as before, to its own tenant only', async () => {
    const created = await harness.submit({ prompt: 'Build a small bakery website for Crumb and Co.' });
    const run = await harness.waitForRun(created.id, 120_000);
    expect(run.status).toBe('succeeded');
    await waitForRunEndEvent(run.id);
    const day = run.createdAt.slice(0, 10);
    const createdMs = Date.parse(run.createdAt);
    const inWindow = `from=${encodeURIComponent(new Date(createdMs).toISOString())}&to=${encodeURIComponent(new Date(createdMs + 1).toISOString())}`;
    const afterWindow = `from=${encodeURIComponent(new Date(createdMs + 1).toISOString())}`;
    const listings = {
      all: '/v1/runs',
      succeeded: '/v1/runs?status=succeeded',
      failed: '/v1/runs?status=failed',
      inWindow: `/v1/runs?${inWindow}`,
      day: `/v1/runs?from=${day}T00:00:00Z&to=${day}T23:59:59.999Z`,
      afterWindow: `/v1/runs?${afterWindow}`,
      prompt: '/v1/runs?prompt=BAKERY%20crumb',
      otherWords: '/v1/runs?prompt=bakery%20zebra',
      tenant: '/v1/runs?tenant=default&status=succeeded&prompt=website',
    };
    // What each listing must hold of this run, so the equality below cannot pass on two empty pages.
    const holdsRun: Record<keyof typeof listings, boolean> = {
      all: true,
      succeeded: true,
      failed: false,
      inWindow: true,
      day: true,
      afterWindow: false,
      prompt: true,
      otherWords: false,
      tenant: true,
    };

    async function readEverything() {
      const view = await api(`/v1/runs/${run.id}`);
      const lists: Record<string, { status: number; json: unknown }> = {};
      for (const [name, path] of Object.entries(listings)) lists[name] = await api(path);
      const events = await api(`/v1/runs/${run.id}/events`);
      const eventsAfter = await api(`/v1/runs/${run.id}/events?after=${(events.json as Array<{ id: string }>)[3]!.id}`);
      const stream = await sse(`/v1/runs/${run.id}/events`);
      const view0 = view.json as { deployment: { live: { url: string } | null; latest: { url: string } | null } };
      const live = await fetchAnswer(view0.deployment.live!.url);
      const liveCss = await fetchAnswer(`${view0.deployment.live!.url}styles.css`);
      const latest = await fetchAnswer(view0.deployment.latest!.url);
      const intruder = {
        view: await api(`/v1/runs/${run.id}`, { key: intruderKey }),
        events: await api(`/v1/runs/${run.id}/events`, { key: intruderKey }),
        list: await api('/v1/runs', { key: intruderKey }),
        listOther: await api('/v1/runs?tenant=default', { key: intruderKey }),
        cancel: await api(`/v1/runs/${run.id}/cancel`, { key: intruderKey, method: 'POST' }),
      };
      const cancel = await api(`/v1/runs/${run.id}/cancel`, { method: 'POST' });
      return { view, lists, events, eventsAfter, stream, live, liveCss, latest, intruder, cancel };
    }

    const before = await readEverything();
    expect(before.view.status).toBe(200);
    expect(before.view.json).toMatchObject({ id: run.id, status: 'succeeded', provider: 'anthropic', files: expect.arrayContaining([expect.objectContaining({ path: 'index.html' })]) });
    for (const [name, listing] of Object.entries(before.lists)) {
      expect(listing.status, name).toBe(200);
      const ids = (listing.json as { runs: Array<{ id: string }> }).runs.map((summary) => summary.id);
      expect(ids.includes(run.id), name).toBe(holdsRun[name as keyof typeof listings]);
    }
    expect((before.events.json as unknown[]).length).toBeGreaterThan(10);
    expect((before.eventsAfter.json as unknown[]).length).toBe((before.events.json as unknown[]).length - 4);
    expect(before.stream.at(-1)).toEqual({ fields: { event: 'end' }, data: { status: 'succeeded' } });
    expect(before.stream.slice(1, -1).map((block) => block.data)).toEqual(before.events.json);
    expect(before.live.status).toBe(200);
    expect(before.live.body).toContain('<title>');
    expect(before.latest.status).toBe(200);
    expect(before.intruder.view.status).toBe(404);
    expect(before.intruder.events.status).toBe(404);
    expect(before.intruder.listOther.status).toBe(403);
    expect(before.intruder.cancel.status).toBe(404);
    expect(before.cancel).toMatchObject({ status: 409, json: { error: { code: 'run_already_ended' } } });

    await archiveAndExpire(run.id);
    expect(await harness.fleet.store.getRun(run.id)).toBeNull();

    const after = await readEverything();
    // Nothing legitimately differs: the archive is the ended run, which no longer changes.
    expect(after).toEqual(before);
  }, 240_000);

  it('shows the provider a run was made with, before and after its archive', async () => {
    // A run of a declared provider, ended without a call: only its record matters here.
    const created = await harness.fleet.store.createRun({ tenant: 'default', prompt: 'a page served by vllm', model: harness.config.BUILDFLEET_MODEL, provider: 'vllm', maxTurns: 5, maxTokens: 1024, options: {} });
    await harness.fleet.store.endRun(created.id, 0, 'failed', { error: { code: 'max_turns_exceeded', message: 'ran out of turns' } });
    const before = await api(`/v1/runs/${created.id}`);
    expect(before).toMatchObject({ status: 200, json: { id: created.id, provider: 'vllm' } });
    await archiveAndExpire(created.id);
    expect(await harness.fleet.store.getRun(created.id)).toBeNull();
    expect((await history.getRun(created.id))?.provider).toBe('vllm');
    expect(await api(`/v1/runs/${created.id}`)).toEqual(before);
  }, 60_000);
});

describe('the listing across Redis and history', () => {
  const tenant = 'pager';
  const ids: string[] = [];
  let store: InProcessFleet['fleet']['store'];

  /** Runs ended in Redis (each `succeeded` or `failed`), and two left live. */
  async function createRuns(): Promise<RunRecord[]> {
    const runs: RunRecord[] = [];
    const prompts = ['a bakery page', 'a florist page', 'bakery and cafe', 'portfolio', 'bakery shop', 'a gallery', 'a bakery blog', 'news site'];
    for (const [index, prompt] of prompts.entries()) {
      const run = await store.createRun({ tenant, prompt, model: harness.config.BUILDFLEET_MODEL, maxTurns: 5, maxTokens: 1024, options: {} });
      if (index < 6) await store.endRun(run.id, 0, index % 3 === 1 ? 'failed' : 'succeeded', index % 3 === 1 ? { error: { code: 'max_turns_exceeded', message: 'ran out of turns' } } : { result: 'done' });
      runs.push((await store.getRun(run.id))!);
    }
    return runs;
  }

  /** A run only history holds, created in the same ms as `twin` (a tie the ids decide). */
  function archiveTiedWith(twin: RunRecord, id: string, prompt: string): RunArchive {
    const usage = { input_tokens: 1, cache_write_5m_input_tokens: 0, cache_write_1h_input_tokens: 0, cache_read_input_tokens: 0, output_tokens: 1 };
    return {
      run: {
        id, tenant, status: 'succeeded', errorCode: null, errorMessage: null, model: twin.model, provider: twin.provider, prompt, agent: 'site-builder', phase: 'building', turns: 1, usage, costMicroUsd: 3,
        budget: { costMicroUsd: null, tokens: null, costSetBy: 'run' }, result: 'done', latestDeploy: null, liveDeploy: null, traceId: null, maxTokens: 1024, thinking: 'off', thinkingBudgetTokens: null, effort: null, thinkingDisplay: null, todos: [], files: [],
        question: null, optionsTokenBudget: null, meta: null, rerunOf: null, input: null, createdAt: twin.createdAt, endedAt: twin.createdAt,
      },
      turns: [],
      toolCalls: [],
      events: [],
      messages: [],
    };
  }

  async function listAll(query: string, limit: number, between?: (page: number) => Promise<void>): Promise<string[]> {
    const seen: string[] = [];
    let cursor: string | null = null;
    for (let page = 0; page < 50; page += 1) {
      const answer = await api(`/v1/runs?tenant=${tenant}&limit=${limit}${query}${cursor ? `&cursor=${cursor}` : ''}`);
      expect(answer.status).toBe(200);
      const body = answer.json as { runs: Array<{ id: string }>; nextCursor: string | null };
      seen.push(...body.runs.map((summary) => summary.id));
      cursor = body.nextCursor;
      if (cursor === null) return seen;
      await between?.(page);
    }
    throw new Error('the listing did not end');
  }

  it('pages every run once, newest first, wherever each one is — also when runs move between pages', async () => {
    store = harness.fleet.store;
    const runs = await createRuns();
    // Two history-only runs tied with a Redis run on creation time, one id on each side of it.
    const twin = runs[3]!;
    const low = `run_${'0'.repeat(32)}`;
    const high = `run_${'f'.repeat(32)}`;
    expect(await history.archiveRun(archiveTiedWith(twin, low, 'a bakery tie'))).toEqual({ archived: true });
    expect(await history.archiveRun(archiveTiedWith(twin, high, 'another tie'))).toEqual({ archived: true });
    ids.push(...runs.map((run) => run.id), low, high);
    const createdAt = new Map<string, string>([...runs.map((run) => [run.id, run.createdAt] as const), [low, twin.createdAt], [high, twin.createdAt]]);
    const expectedOrder = [...ids].sort((left, right) => Date.parse(createdAt.get(right)!) - Date.parse(createdAt.get(left)!) || (left < right ? 1 : left > right ? -1 : 0));

    // Runs 0 and 1 only in history, run 2 in both (archived, retention not passed), 3–5 ended in
    // Redis only, 6 and 7 live.
    await archiveAndExpire(runs[0]!.id);
    await archiveAndExpire(runs[1]!.id);
    expect(await archiveFinishedRun(archiveDependencies(3_600_000), runs[2]!.id)).toBe('archived');

    const wholeBefore = await api(`/v1/runs?tenant=${tenant}&limit=100`);
    expect((wholeBefore.json as { runs: Array<{ id: string }> }).runs.map((summary) => summary.id)).toEqual(expectedOrder);
    for (const limit of [1, 2, 3]) expect(await listAll('', limit)).toEqual(expectedOrder);

    // Filters apply to both sources alike.
    const statusOf = (id: string) => (id === low || id === high ? 'succeeded' : runs.find((run) => run.id === id)!.status);
    const promptOf = (id: string) => (id === low ? 'a bakery tie' : id === high ? 'another tie' : runs.find((run) => run.id === id)!.prompt);
    expect(await listAll('&status=succeeded', 2)).toEqual(expectedOrder.filter((id) => statusOf(id) === 'succeeded'));
    expect(await listAll('&status=queued', 2)).toEqual(expectedOrder.filter((id) => statusOf(id) === 'queued'));
    expect(await listAll('&prompt=Bakery', 2)).toEqual(expectedOrder.filter((id) => promptOf(id).split(' ').includes('bakery')));
    expect(await listAll('&prompt=bakery&status=failed', 1)).toEqual(expectedOrder.filter((id) => promptOf(id).split(' ').includes('bakery') && statusOf(id) === 'failed'));
    const middle = Date.parse(twin.createdAt);
    expect(await listAll(`&to=${new Date(middle + 1).toISOString()}`, 2)).toEqual(expectedOrder.filter((id) => Date.parse(createdAt.get(id)!) <= middle));
    expect(await listAll(`&from=${new Date(middle).toISOString()}&to=${new Date(middle + 1).toISOString()}`, 1)).toEqual(expectedOrder.filter((id) => Date.parse(createdAt.get(id)!) === middle));

    // The ended runs still in Redis are archived and expire while a client pages through: each
    // still shows exactly once, in its place.
    const moving = [runs[2]!.id, runs[3]!.id, runs[4]!.id, runs[5]!.id];
    const paged = await listAll('', 2, async (page) => {
      if (page === 0) for (const id of moving) await archiveAndExpire(id, id === runs[2]!.id ? 'already-archived' : 'archived');
    });
    expect(paged).toEqual(expectedOrder);
    // And the listing answers as it did while they were in Redis.
    expect(await api(`/v1/runs?tenant=${tenant}&limit=100`)).toEqual(wholeBefore);
  }, 240_000);

  it('refuses a cursor it did not hand out, and a time range that ends before it starts', async () => {
    expect(await api('/v1/runs?cursor=bm90LWEtY3Vyc29y')).toMatchObject({ status: 400, json: { error: { code: 'invalid_query' } } });
    expect(await api('/v1/runs?from=2026-03-02T00:00:00Z&to=2026-03-01T00:00:00Z')).toMatchObject({ status: 400, json: { error: { code: 'invalid_query' } } });
    expect(await api('/v1/runs?from=yesterday')).toMatchObject({ status: 400, json: { error: { code: 'invalid_query' } } });
  });
});

describe('the prompt filter', () => {
  it('matches runs in Redis by PostgreSQL’s own text search, and without history by the same rule', async () => {
    const prompts = [
      'A bakery website',
      'BAKERY and café in Zürich',
      'bakeries of Paris',
      'the crumb-and-co bakery',
      'café, bakery; brunch!',
      'Build 3 pages for a bakery',
      '',
    ];
    // Each text matches some prompts and not others, except the last: no stemming, so "bakeries" is
    // not "bakery".
    for (const [text, some] of [['bakery', true], ['Bakery café', true], ['crumb', true], ['co bakery', true], ['3 pages', true], ['zürich', true], ['paris', true], ['paris bakery', false]] as const) {
      const byPostgres = await history.promptsMatchText(prompts, text);
      expect(byPostgres.some(Boolean), text).toBe(some);
      expect(byPostgres.every(Boolean), text).toBe(false);
      // Ordinary words: the JavaScript rule the fleet uses without history agrees with PostgreSQL.
      expect(prompts.map((prompt) => promptHasWords({ prompt, text })), text).toEqual(byPostgres);
    }
  });
});
