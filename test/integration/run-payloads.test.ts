// A run's payloads over the API (issue #18): a real build through the in-process fleet (simulator
// over HTTP, real Redis, real queues and workers), its turns, tool calls, transcript and files read
// over HTTP while Redis holds it, then again once the real archive step has moved it to a real
// PostgreSQL and its keys have expired — the same answers. Another tenant gets run_not_found; an
// admin key of another tenant reads it; paging walks every entry once; a secret in the prompt never
// comes out.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFaultyUpstream, type FaultyUpstream } from '../../src/dev/faulty-upstream.js';
import { ApiKeyStore } from '../../src/auth/api-key-store.js';
import type { HistoryStore } from '../../src/history/history-store.js';
import { siteStoreOf } from '../../src/sites/site-store-of-config.js';
import { archiveFinishedRun } from '../../src/workers/archive-worker.js';
import { waitForRunKeysToExpire } from '../support/run-keys.js';
import { startInProcessFleet, type InProcessFleet } from '../support/in-process-fleet.js';
import { createTestDatabase, type TestDatabase } from '../support/postgres.js';

let harness: InProcessFleet;
let database: TestDatabase;
let history: HistoryStore;
let intruderKey: string;
let adminKey: string;

beforeAll(async () => {
  database = await createTestDatabase('runpayloads');
  // The tests archive each run themselves, with a retention of 1 ms: the fleet's own archive
  // worker, racing them with the configured retention, could set the keys' TTL back to days.
  harness = await startInProcessFleet({ label: 'runpayloads', env: { DATABASE_URL: database.url }, archive: false });
  if (!harness.fleet.history) throw new Error('the fleet has no history store although DATABASE_URL is set');
  history = harness.fleet.history;
  const keys = new ApiKeyStore({ redis: harness.fleet.redis, keys: harness.fleet.store.keys });
  ({ token: intruderKey } = await keys.create({ tenant: 'intruder', scopes: ['runs:read', 'runs:write'] }));
  ({ token: adminKey } = await keys.create({ tenant: 'operators', scopes: ['admin'] }));
}, 120_000);
afterAll(async () => {
  await harness?.close();
  await database?.drop();
});

async function api(path: string, key = harness.apiKey, fleet = harness): Promise<{ status: number; json: any; text: string }> {
  const response = await fetch(`${fleet.apiUrl}${path}`, { headers: { authorization: `Bearer ${key}`, accept: 'application/json' } });
  const text = await response.text();
  return { status: response.status, json: text === '' ? null : JSON.parse(text), text };
}

async function ok(path: string, key?: string, fleet = harness): Promise<any> {
  const answer = await api(path, key ?? fleet.apiKey, fleet);
  if (answer.status !== 200) throw new Error(`${path} answered ${answer.status}: ${answer.text}`);
  return answer.json;
}

/** Every entry of a paged list, `limit` at a time, following nextAfter. */
async function allPages(path: string, field: string, limit: number): Promise<{ entries: unknown[]; pages: number }> {
  const entries: unknown[] = [];
  let pages = 0;
  for (let after: number | string | null = null; ; ) {
    const query = `limit=${limit}${after === null ? '' : `&after=${encodeURIComponent(String(after))}`}`;
    const page = await ok(`${path}?${query}`);
    pages += 1;
    entries.push(...(page[field] as unknown[]));
    if (page.nextAfter === null) return { entries, pages };
    after = page.nextAfter;
    if (pages > 500) throw new Error(`${path} pages without end`);
  }
}

async function waitForRunEndEvent(runId: string): Promise<void> {
  for (let attempt = 0; ; attempt += 1) {
    const events = await harness.fleet.store.readEvents(runId, '-', 10_000);
    if (events.some((event) => event.event === 'run-end')) return;
    if (attempt > 3_000) throw new Error(`${runId} has no run-end event`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

async function archiveAndExpire(runId: string): Promise<void> {
  const outcome = await archiveFinishedRun({ store: harness.fleet.store, queues: harness.fleet.queues, history, sites: siteStoreOf(harness.config), retentionMs: 1 }, runId);
  expect(outcome).toBe('archived');
  await waitForRunKeysToExpire({ redis: harness.fleet.redis, keys: harness.fleet.store.keys, runId });
}

/** Every payload the API answers of the run, the listings read whole. */
async function payloadsOf(runId: string) {
  return {
    turns: await ok(`/v1/runs/${runId}/turns?limit=100`),
    toolCalls: await ok(`/v1/runs/${runId}/tool-calls?limit=100`),
    transcript: await ok(`/v1/runs/${runId}/transcript?limit=100`),
    files: await ok(`/v1/runs/${runId}/files`),
  };
}

describe('run payloads over the API', () => {
  it('answers turns, tool calls, transcript and files live and from history alike, to its tenant and admins only', async () => {
    const created = await harness.submit({ prompt: 'Build a small bakery website for Crumb and Co.' });
    const run = await harness.waitForRun(created.id, 120_000);
    expect(run.status).toBe('succeeded');
    await waitForRunEndEvent(run.id);

    const live = await payloadsOf(run.id);
    // Turns: every turn that answered, with what the request offered and how long it took.
    expect(live.turns.turns.length).toBeGreaterThan(1);
    expect(live.turns.nextAfter).toBeNull();
    for (const turn of live.turns.turns) {
      expect(turn.toolsOffered.length).toBe(turn.toolCount);
      expect(typeof turn.phase).toBe('string');
      expect(typeof turn.toolChoice).toBe('string');
      expect(turn.modelDurationMs).toBeGreaterThanOrEqual(0);
      expect(turn.turnDurationMs).toBeGreaterThanOrEqual(turn.modelDurationMs);
      expect(turn.usage.output_tokens).toBeGreaterThan(0);
      expect(turn.model).toBe(run.model);
    }
    expect(live.turns.turns.some((turn: any) => typeof turn.text === 'string' && turn.text.length > 0)).toBe(true);
    expect(live.turns.turns.reduce((sum: number, turn: any) => sum + turn.usage.output_tokens, 0)).toBe(run.usage.output_tokens);

    // Tool calls: each with its input, the result the model got and the contract's verdict.
    const calls = live.toolCalls.toolCalls;
    const write = calls.find((call: any) => call.tool === 'write_file' && call.input.path === 'index.html');
    expect(write).toMatchObject({ status: 'ok', verdict: 'valid', verdictReason: null, untrusted: true, attempt: 1, injectionFlags: [] });
    expect(typeof write.input.content).toBe('string');
    expect(write.result.content.startsWith('<tool_output tool="write_file" trust="untrusted">')).toBe(true);
    expect(write.durationMs).toBeGreaterThanOrEqual(0);
    expect(calls.map((call: any) => call.position)).toEqual(calls.map((_: unknown, index: number) => index));
    expect(calls.every((call: any) => call.status !== 'unanswered')).toBe(true);

    // The transcript: the prompt first, then the model's answers.
    expect(live.transcript.messages[0]).toMatchObject({ index: 0, role: 'user' });
    expect(JSON.stringify(live.transcript.messages[0].content)).toContain('Crumb and Co.');
    expect(live.transcript.messages.some((message: any) => message.role === 'assistant')).toBe(true);

    // Files: the workspace, and one file's content as the tool wrote it.
    expect(live.files.source).toBe('workspace');
    const view = await ok(`/v1/runs/${run.id}`);
    expect(live.files.files).toEqual(view.files);
    const index = await ok(`/v1/runs/${run.id}/files/index.html`);
    expect(index).toMatchObject({ path: 'index.html', source: 'workspace', deployId: null, content: write.input.content });
    expect((await api(`/v1/runs/${run.id}/files/no-such-file.html`)).json.error.code).toBe('run_file_not_found');
    // A path the workspace rules refuse is no file; a page size out of range is refused.
    expect((await api(`/v1/runs/${run.id}/files/..%2F..%2Fetc%2Fpasswd`)).json.error.code).toBe('run_file_not_found');
    for (const query of ['limit=0', 'limit=101', 'after=first', 'after=-2']) {
      const answer = await api(`/v1/runs/${run.id}/tool-calls?${query}`);
      expect([query, answer.status, answer.json.error.code]).toEqual([query, 400, 'invalid_query']);
    }

    // Paging walks every entry exactly once.
    const pagedCalls = await allPages(`/v1/runs/${run.id}/tool-calls`, 'toolCalls', 2);
    expect(pagedCalls.pages).toBe(Math.ceil(calls.length / 2));
    expect(pagedCalls.entries).toEqual(calls);
    expect((await allPages(`/v1/runs/${run.id}/turns`, 'turns', 1)).entries).toEqual(live.turns.turns);
    expect((await allPages(`/v1/runs/${run.id}/transcript`, 'messages', 3)).entries).toEqual(live.transcript.messages);
    expect((await allPages(`/v1/runs/${run.id}/files`, 'files', 1)).entries).toEqual(live.files.files);

    // Another tenant: run_not_found, as for GET /v1/runs/:id. An admin of another tenant reads it.
    const paths = ['turns', 'tool-calls', 'transcript', 'files', 'files/index.html'].map((tail) => `/v1/runs/${run.id}/${tail}`);
    for (const path of paths) {
      const answer = await api(path, intruderKey);
      expect([path, answer.status, answer.json.error.code]).toEqual([path, 404, 'run_not_found']);
      expect((await api(path, adminKey)).status).toBe(200);
    }

    // Archived, keys expired: the same answers from PostgreSQL.
    await archiveAndExpire(run.id);
    const archived = await payloadsOf(run.id);
    expect(archived.turns).toEqual(live.turns);
    expect(archived.toolCalls).toEqual(live.toolCalls);
    expect(archived.transcript).toEqual(live.transcript);
    expect(archived.files).toEqual({ ...live.files, source: 'archive' });
    expect((await allPages(`/v1/runs/${run.id}/tool-calls`, 'toolCalls', 2)).entries).toEqual(calls);
    // The workspace is not archived: a file is answered from the latest deployment.
    const deployed = await ok(`/v1/runs/${run.id}/files/index.html`);
    expect(deployed).toMatchObject({ path: 'index.html', source: 'deployment', deployId: view.deployment.latest.id });
    expect(deployed.content.length).toBeGreaterThan(0);
    for (const path of paths) {
      expect((await api(path, intruderKey)).status).toBe(404);
      expect((await api(path, adminKey)).status).toBe(200);
    }
  }, 240_000);

  it('never answers a secret the prompt carried, live or archived', async () => {
    const secret = 'sk-ant-api03-PayloadSecretValue1234567890';
    const buildfleetKey = 'bf_PayloadListingKey0123456789';
    const created = await harness.submit({ prompt: `Build a small bakery website for Crumb and Co. Our deploy key is ${secret} for the footer, the API key ${buildfleetKey}.` });
    const run = await harness.waitForRun(created.id, 120_000);
    await waitForRunEndEvent(run.id);
    const check = async () => {
      const answers = await Promise.all(['turns', 'tool-calls', 'transcript'].map((tail) => api(`/v1/runs/${run.id}/${tail}?limit=100`)));
      for (const answer of answers) {
        expect(answer.status).toBe(200);
        expect(answer.text).not.toContain(secret);
        expect(answer.text).not.toContain(buildfleetKey);
      }
      // The prompt is in the transcript, redacted.
      expect(answers[2]!.text).toContain('[redacted]');
      for (const file of (await ok(`/v1/runs/${run.id}/files`)).files) {
        const answer = await api(`/v1/runs/${run.id}/files/${file.path}`);
        expect(answer.text).not.toContain(secret);
      }
      // The run's record, its events, and the listing's prompt excerpt (to its tenant, and to an
      // admin naming the tenant) answer the same prompt redacted.
      for (const path of [`/v1/runs/${run.id}`, `/v1/runs/${run.id}/events`]) {
        const answer = await api(path);
        expect(answer.status, path).toBe(200);
        expect(answer.text, path).not.toContain(secret);
        expect(answer.text, path).not.toContain(buildfleetKey);
      }
      for (const [path, key] of [
        ['/v1/runs?limit=100', harness.apiKey],
        ['/v1/runs?limit=100&tenant=default', adminKey],
      ] as const) {
        const listing = await api(path, key);
        expect(listing.status, path).toBe(200);
        const listed = (listing.json.runs as Array<{ id: string; prompt: string }>).find((candidate) => candidate.id === run.id);
        expect(listed?.prompt, path).toBe('Build a small bakery website for Crumb and Co. Our deploy key is [redacted] for the footer, the API key [redacted].');
        expect(listing.text, path).not.toContain(secret);
        expect(listing.text, path).not.toContain(buildfleetKey);
      }
    };
    await check();
    // The transcript and the record in Redis do hold it: the redaction happens on the way out.
    expect(JSON.stringify(await harness.fleet.store.getMessages(run.id))).toContain(secret);
    expect((await harness.fleet.store.getRun(run.id))?.prompt).toContain(buildfleetKey);
    // Archived and expired: the listing reads the prompt from its history row.
    await archiveAndExpire(run.id);
    await check();
  }, 240_000);

  it('redacts a secret that the listing’s 200-character cut would halve', async () => {
    // Cut first, the key's first characters would survive as a fragment too short to look like a key.
    const secret = 'sk-ant-api03-CutAtTheEdgeSecret0123456789';
    const prompt = `${'Build a small bakery website. '.repeat(7).slice(0, 190)}${secret} is the key.`;
    const created = await harness.submit({ prompt });
    const listing = await ok('/v1/runs?limit=100');
    const listed = (listing.runs as Array<{ id: string; prompt: string }>).find((candidate) => candidate.id === created.id);
    expect(listed?.prompt).toBe(`${prompt.slice(0, 190)}[redacted]`);
    expect(JSON.stringify(listing)).not.toContain('sk-ant-api');
    await harness.waitForRun(created.id, 120_000);
  }, 240_000);
});

describe('tool calls whose outputs the upstream shapes', () => {
  // The builder checks its deployment with fetch_url_live at BUILDFLEET_SITES_PUBLIC_URL: here a
  // loopback server in front of the faulty upstream, which serves a page holding a secret-shaped
  // key while `secretPage` is set, and the upstream's answer (valid, or its current fault) else.
  const SECRET = 'sk-ant-api03-UpstreamPageSecret0123456789';
  let upstream: FaultyUpstream;
  let front: Server;
  let secretPage = false;
  let fleet: InProcessFleet;
  beforeAll(async () => {
    upstream = await startFaultyUpstream();
    front = createServer((request, response) => {
      const path = request.url ?? '/';
      if (secretPage && !/\.(png|jpe?g|svg|json|txt)$/i.test(path)) {
        response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(`<!doctype html><html><head><title>Crumb</title></head><body><p>Staff key: ${SECRET}</p></body></html>`);
        return;
      }
      fetch(`${upstream.origin}${path}`).then(
        async (answer) => {
          const headers: Record<string, string> = {};
          const type = answer.headers.get('content-type');
          if (type) headers['content-type'] = type;
          response.writeHead(answer.status, headers).end(Buffer.from(await answer.arrayBuffer()));
        },
        () => response.writeHead(502).end(),
      );
    });
    await new Promise<void>((resolve) => front.listen(0, '127.0.0.1', resolve));
    const origin = `http://127.0.0.1:${(front.address() as AddressInfo).port}`;
    fleet = await startInProcessFleet({ label: 'runpayloadsupstream', toolWorkers: 2, env: { BUILDFLEET_SITES_PUBLIC_URL: origin, BUILDFLEET_KILLSWITCH_MIN_VOLUME: '1000000' } });
  }, 120_000);
  afterAll(async () => {
    await fleet?.close();
    await new Promise((resolve) => front?.close(resolve));
    await upstream?.close();
  });

  const toolCallsOf = async (runId: string) => (await ok(`/v1/runs/${runId}/tool-calls?limit=100`, undefined, fleet)).toolCalls as any[];

  it('redacts a secret-looking string a tool output carried', async () => {
    secretPage = true;
    try {
      const run = await fleet.waitForRun((await fleet.submit({})).id, 120_000);
      const fetches = (await toolCallsOf(run.id)).filter((call) => call.tool === 'fetch_url_live' && call.status === 'ok');
      expect(fetches.length).toBeGreaterThan(0);
      const answer = await api(`/v1/runs/${run.id}/tool-calls?limit=100`, fleet.apiKey, fleet);
      expect(answer.text).not.toContain(SECRET);
      expect(JSON.stringify(fetches[0].result)).toContain('Staff key: [redacted]');
    } finally {
      secretPage = false;
    }
  }, 240_000);

  it('shows the contract’s verdict and reason, and refused writes as not validated', async () => {
    upstream.setMode('broken', 'truncated_json');
    try {
      const run = await fleet.waitForRun((await fleet.submit({})).id, 120_000);
      expect(run.safeMode).toBe('skip_writes');
      const calls = await toolCallsOf(run.id);
      const invalid = calls.find((call) => call.tool === 'fetch_url_live' && call.verdict !== 'valid');
      expect(invalid).toMatchObject({ status: 'error', verdict: 'invalid', verdictReason: 'unexpected_content_type:application/json', errorCode: 'ToolOutputInvalid', untrusted: true });
      expect(invalid.result).toMatchObject({ isError: true, errorCode: 'ToolOutputInvalid', errorReason: 'unexpected_content_type:application/json' });
      const refused = calls.find((call) => call.tool === 'publish');
      expect(refused).toMatchObject({ status: 'error', verdict: 'not_validated', verdictReason: 'safe_mode_skip_writes', errorCode: 'safe_mode_skip_writes', attempt: null });
      expect(calls.filter((call) => call.verdict === 'valid').length).toBeGreaterThan(0);
    } finally {
      upstream.setMode('valid');
    }
  }, 240_000);

  it('attributes injection flags to the tool call whose output carried them', async () => {
    upstream.setMode('broken', 'injection');
    try {
      const run = await fleet.waitForRun((await fleet.submit({})).id, 120_000);
      const calls = await toolCallsOf(run.id);
      const flagged = calls.filter((call) => call.injectionFlags.length > 0);
      expect(flagged.length).toBeGreaterThan(0);
      for (const call of flagged) {
        expect(call.tool).toBe('fetch_url_live');
        expect(call.injectionFlags[0]).toMatchObject({ source: 'output', patterns: expect.arrayContaining(['ignore_previous_instructions']) });
      }
      // Every flag event of the run is on a call: none is lost, none counted twice.
      const events = await fleet.fleet.store.readEvents(run.id, '-', 10_000);
      const flagEvents = events.filter((event) => event.event === 'tool-output-injection-flag');
      expect(flagged.reduce((sum, call) => sum + call.injectionFlags.length, 0)).toBe(flagEvents.length);
      expect(calls.filter((call) => call.injectionFlags.length === 0).every((call) => !JSON.stringify(call.result ?? '').includes('IGNORE ALL PREVIOUS'))).toBe(true);
    } finally {
      upstream.setMode('valid');
    }
  }, 240_000);
});
