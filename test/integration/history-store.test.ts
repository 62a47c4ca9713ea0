// The history store against a real PostgreSQL (the suite's private one, a database per file):
// migrations, idempotent archiving, reads validated, listing filters and the keyset cursor.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HistoryStore } from '../../src/history/history-store.js';
import { migrateHistory, MIGRATIONS_TABLE } from '../../src/history/migrate-history.js';
import { HistoryCursorInvalid, RunArchiveInvalid, StoredHistoryRowInvalid } from '../../src/history/history-errors.js';
import type { RunArchive } from '../../src/history/run-archive.js';
import { createTestDatabase, type TestDatabase } from '../support/postgres.js';

const usage = (tokens: number) => ({
  input_tokens: tokens,
  cache_write_5m_input_tokens: 0,
  cache_write_1h_input_tokens: 0,
  cache_read_input_tokens: tokens * 2,
  output_tokens: Math.floor(tokens / 2),
});

function archiveOf({ id, tenant = 'acme', status = 'succeeded', prompt = 'a site for a bakery', createdAt = '2026-03-02T10:00:00.000Z', costMicroUsd = 1_000, provider = 'anthropic', agent = 'site-builder' }: {
  id: string;
  provider?: string;
  agent?: string;
  tenant?: string;
  status?: 'succeeded' | 'failed' | 'refused' | 'cancelled';
  prompt?: string;
  createdAt?: string;
  costMicroUsd?: number;
}): RunArchive {
  return {
    run: {
      id,
      tenant,
      status,
      errorCode: status === 'failed' ? 'max_turns' : null,
      errorMessage: status === 'failed' ? 'ran out of turns' : null,
      model: 'claude-sonnet-4-6',
      provider,
      prompt,
      agent,
      phase: 'verifying',
      turns: 2,
      usage: usage(300),
      costMicroUsd,
      budget: { costMicroUsd: 5_000_000, tokens: null, costSetBy: 'run' },
      result: status === 'succeeded' ? 'Built it.' : null,
      latestDeploy: 'dep_1',
      liveDeploy: null,
      traceId: null,
      maxTokens: 8192,
      thinking: 'off',
      thinkingBudgetTokens: null,
      effort: null,
      thinkingDisplay: null,
      todos: [{ id: 'hero', title: 'Hero section', phase: 'build', done: true }],
      files: [{ path: 'index.html', bytes: 11 }],
      question: null,
      optionsTokenBudget: null,
      meta: null,
      rerunOf: null,
      input: { prompt: "a bakery" },
      createdAt,
      endedAt: new Date(Date.parse(createdAt) + 60_000).toISOString(),
    },
    turns: [
      { step: 1, stopReason: 'tool_use', usage: usage(100), costMicroUsd: Math.floor(costMicroUsd / 2), modelDurationMs: 900, turnDurationMs: 1_100, request: { messages: 1, tools: 6, toolChoice: 'auto' } },
      { step: 2, stopReason: 'end_turn', usage: usage(200), costMicroUsd: Math.ceil(costMicroUsd / 2), modelDurationMs: 700, turnDurationMs: 750, request: { messages: 3, tools: 6 } },
    ],
    toolCalls: [
      { step: 1, toolUseId: 'toolu_1', tool: 'write_file', input: { path: 'index.html', content: '<h1>hi</h1>' }, result: { content: 'ok', is_error: false }, status: 'ok', errorCode: null, durationMs: 12 },
      { step: 1, toolUseId: 'toolu_2', tool: 'deploy', input: {}, result: { content: 'no files', is_error: true, error_code: 'deploy_failed' }, status: 'error', errorCode: 'deploy_failed', durationMs: 30 },
    ],
    events: [
      { streamId: '1772445600000-0', step: 0, event: 'run-create', at: createdAt, data: { prompt_chars: prompt.length } },
      { streamId: '1772445600000-1', step: 1, event: 'tool-call-end', at: createdAt, data: { tool: 'write_file', tool_use_id: 'toolu_01', ok: true } },
      { streamId: '1772445660000-0', step: 2, event: 'run-end', at: createdAt, data: { status } },
    ],
    messages: [
      { role: 'user', content: prompt },
      { role: 'assistant', content: [{ type: 'text', text: 'Built it.' }] },
    ],
  };
}

async function rowCounts(database: TestDatabase, runId: string): Promise<Record<string, number>> {
  const counts: Record<string, number> = {};
  for (const table of ['runs', 'turns', 'tool_calls', 'events', 'transcripts']) {
    const column = table === 'runs' ? 'id' : 'run_id';
    const result = await database.pool.query(`SELECT count(*)::int AS n FROM ${table} WHERE ${column} = $1`, [runId]);
    counts[table] = result.rows[0].n;
  }
  return counts;
}

describe('history migrations', () => {
  it('apply to an empty database, then find nothing left to apply', async () => {
    const database = await createTestDatabase('migrations', { migrate: false });
    try {
      const first = await migrateHistory({ databaseUrl: database.url });
      expect(first).toEqual(['1767225600000_history-schema', '1767312000000_run-view-columns', '1767398400000_run-rerun-of', '1767484800000_run-provider', '1767571200000_run-thinking-settings', '1767657600000_run-agent', '1767744000000_run-input']);
      const tables = await database.pool.query("SELECT table_name FROM information_schema.tables WHERE table_schema = 'public' ORDER BY table_name");
      expect(tables.rows.map((row) => row.table_name)).toEqual([MIGRATIONS_TABLE, 'events', 'runs', 'tool_calls', 'transcripts', 'turns']);
      expect(await migrateHistory({ databaseUrl: database.url })).toEqual([]);
      // Two processes migrating at once (node-pg-migrate's advisory lock; the second waits): applied once.
      const again = await createTestDatabase('migrationsrace', { migrate: false });
      try {
        const results = await Promise.all([migrateHistory({ databaseUrl: again.url }), migrateHistory({ databaseUrl: again.url })]);
        expect(results.flat()).toEqual(['1767225600000_history-schema', '1767312000000_run-view-columns', '1767398400000_run-rerun-of', '1767484800000_run-provider', '1767571200000_run-thinking-settings', '1767657600000_run-agent', '1767744000000_run-input']);
      } finally {
        await again.drop();
      }
    } finally {
      await database.drop();
    }
  });

  it('give a run archived before history kept the agent `site-builder`, the only agent there was', async () => {
    const database = await createTestDatabase('preagents', { migrate: false });
    try {
      expect(await migrateHistory({ databaseUrl: database.url, count: 5 })).toHaveLength(5);
      // The row as the previous release archived it: written through a column of the same name, then dropped.
      await database.pool.query('ALTER TABLE runs ADD COLUMN agent text, ADD COLUMN input jsonb');
      const archive = archiveOf({ id: 'run_before_agents', agent: 'order-desk' });
      expect(await new HistoryStore(database.pool).archiveRun(archive)).toEqual({ archived: true });
      await database.pool.query('ALTER TABLE runs DROP COLUMN agent');
      expect(await migrateHistory({ databaseUrl: database.url, count: 1 })).toEqual(['1767657600000_run-agent']);
      expect(await new HistoryStore(database.pool).getRun('run_before_agents')).toEqual({ ...archive.run, agent: 'site-builder' });
      // Then the input: a row from before it holds none (null), which a rerun reads as its prompt.
      await database.pool.query('ALTER TABLE runs DROP COLUMN input');
      expect(await migrateHistory({ databaseUrl: database.url })).toEqual(['1767744000000_run-input']);
      expect(await new HistoryStore(database.pool).getRun('run_before_agents')).toEqual({ ...archive.run, agent: 'site-builder', input: null });
      // A run archived since keeps its own.
      const since = archiveOf({ id: 'run_after_agents', agent: 'order-desk' });
      await new HistoryStore(database.pool).archiveRun(since);
      expect((await new HistoryStore(database.pool).getRun('run_after_agents'))?.agent).toBe('order-desk');
    } finally {
      await database.drop();
    }
  });

  it('give a run archived before history kept the provider `anthropic`, the provider every run was made with then', async () => {
    const database = await createTestDatabase('premigration', { migrate: false });
    try {
      expect(await migrateHistory({ databaseUrl: database.url, count: 3 })).toEqual(['1767225600000_history-schema', '1767312000000_run-view-columns', '1767398400000_run-rerun-of']);
      // The row as the previous release archived it: written by today's store through a column of
      // the same name, which is then dropped, so only the previous schema's columns remain.
      // The thinking columns of a later migration are added ahead of it the same way (and kept: the
      // provider migration alone is applied).
      await database.pool.query(
        'ALTER TABLE runs ADD COLUMN provider text, ADD COLUMN thinking text, ADD COLUMN effort text, ADD COLUMN thinking_display text, ADD COLUMN agent text, ADD COLUMN input jsonb',
      );
      const archive = archiveOf({ id: 'run_before_providers', provider: 'vllm' });
      expect(await new HistoryStore(database.pool).archiveRun(archive)).toEqual({ archived: true });
      await database.pool.query('ALTER TABLE runs DROP COLUMN provider');
      expect(await migrateHistory({ databaseUrl: database.url, count: 1 })).toEqual(['1767484800000_run-provider']);
      expect(await new HistoryStore(database.pool).getRun('run_before_providers')).toEqual({ ...archive.run, provider: 'anthropic' });
    } finally {
      await database.drop();
    }
  });
});

describe('HistoryStore', () => {
  let database: TestDatabase;
  let store: HistoryStore;

  beforeAll(async () => {
    database = await createTestDatabase('historystore');
    store = new HistoryStore(database.pool);
  });
  afterAll(async () => {
    await database?.drop();
  });

  it('archives a run whole, and a second archive of it writes nothing', async () => {
    const archive = archiveOf({ id: 'run_twice' });
    expect(await store.archiveRun(archive)).toEqual({ archived: true });
    expect(await rowCounts(database, 'run_twice')).toEqual({ runs: 1, turns: 2, tool_calls: 2, events: 3, transcripts: 1 });
    expect(await store.archiveRun(archive)).toEqual({ archived: false });
    // Even a re-delivered archive that differs (a later read of the same run) changes nothing.
    expect(await store.archiveRun({ ...archive, run: { ...archive.run, result: 'changed' }, turns: [] })).toEqual({ archived: false });
    expect(await rowCounts(database, 'run_twice')).toEqual({ runs: 1, turns: 2, tool_calls: 2, events: 3, transcripts: 1 });
    expect((await store.getRun('run_twice'))?.result).toBe('Built it.');
    const stored = await database.pool.query('SELECT tool, input, result, status FROM tool_calls WHERE run_id = $1 ORDER BY tool_use_id', ['run_twice']);
    expect(stored.rows[1]).toEqual({ tool: 'deploy', input: {}, result: { content: 'no files', is_error: true, error_code: 'deploy_failed' }, status: 'error' });
    const events = await database.pool.query('SELECT event FROM events WHERE run_id = $1 ORDER BY position', ['run_twice']);
    expect(events.rows.map((row) => row.event)).toEqual(['run-create', 'tool-call-end', 'run-end']);
  });

  it('archives the same run from two calls at once exactly once', async () => {
    const archive = archiveOf({ id: 'run_concurrent' });
    const results = await Promise.all([store.archiveRun(archive), store.archiveRun(archive), store.archiveRun(archive)]);
    expect(results.filter((result) => result.archived)).toHaveLength(1);
    expect(await rowCounts(database, 'run_concurrent')).toEqual({ runs: 1, turns: 2, tool_calls: 2, events: 3, transcripts: 1 });
  });

  it('refuses an invalid archive before writing any of it', async () => {
    const unfinished = archiveOf({ id: 'run_invalid' });
    (unfinished.run as { status: string }).status = 'running';
    await expect(store.archiveRun(unfinished)).rejects.toThrow(RunArchiveInvalid);
    const duplicateCalls = archiveOf({ id: 'run_invalid' });
    duplicateCalls.toolCalls.push({ ...duplicateCalls.toolCalls[0]! });
    await expect(store.archiveRun(duplicateCalls)).rejects.toThrow(/duplicate toolCalls keys/);
    expect(await rowCounts(database, 'run_invalid')).toEqual({ runs: 0, turns: 0, tool_calls: 0, events: 0, transcripts: 0 });
  });

  it('reads a run back as archived, and hides it from another tenant', async () => {
    const archive = archiveOf({ id: 'run_read', tenant: 'reader', costMicroUsd: 4_200 });
    await store.archiveRun(archive);
    expect(await store.getRun('run_read')).toEqual(archive.run);
    expect(await store.getRun('run_read', 'reader')).toEqual(archive.run);
    expect(await store.getRun('run_read', 'someone_else')).toBeNull();
    expect(await store.getRun('run_missing')).toBeNull();
  });

  it('keeps the provider a run was made with', async () => {
    const archive = archiveOf({ id: 'run_vllm', tenant: 'reader', provider: 'vllm' });
    await store.archiveRun(archive);
    expect((await store.getRun('run_vllm'))?.provider).toBe('vllm');
    // A provider name the fleet could not have stored is refused before anything is written.
    await expect(store.archiveRun(archiveOf({ id: 'run_bad_provider', provider: 'Not A Name' }))).rejects.toThrow(RunArchiveInvalid);
    expect(await store.getRun('run_bad_provider')).toBeNull();
    // …and read back as a row it cannot trust, naming the column.
    await database.pool.query("UPDATE runs SET provider = 'Not A Name' WHERE id = 'run_vllm'");
    const failure = await store.getRun('run_vllm').catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(StoredHistoryRowInvalid);
    expect((failure as StoredHistoryRowInvalid).field).toBe('provider');
    await database.pool.query("DELETE FROM runs WHERE id = 'run_vllm'");
  });

  it('reports a stored row it cannot trust, naming the column', async () => {
    await store.archiveRun(archiveOf({ id: 'run_corrupt', tenant: 'corrupt' }));
    // Raw SQL on purpose: it writes what archiveRun refuses (a status that is not a terminal one).
    await database.pool.query("UPDATE runs SET status = 'exploded' WHERE id = 'run_corrupt'");
    const failure = await store.getRun('run_corrupt').catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(StoredHistoryRowInvalid);
    expect((failure as StoredHistoryRowInvalid).field).toBe('status');
    await database.pool.query("DELETE FROM runs WHERE id = 'run_corrupt'");
  });

  describe('listRuns', () => {
    const tenant = 'lister';
    // 12 runs an hour apart; every third failed; two mention a bakery; one belongs to another tenant.
    beforeAll(async () => {
      for (let index = 0; index < 12; index += 1) {
        await store.archiveRun(
          archiveOf({
            id: `run_list_${String(index).padStart(2, '0')}`,
            tenant,
            status: index % 3 === 0 ? 'failed' : 'succeeded',
            prompt: index === 4 || index === 9 ? 'A landing page for my Bakery, warm colours' : `portfolio site number ${index}`,
            createdAt: new Date(Date.UTC(2026, 4, 1, index)).toISOString(),
            costMicroUsd: 1_000 * (index + 1),
          }),
        );
      }
      await store.archiveRun(archiveOf({ id: 'run_list_other', tenant: 'other_lister', prompt: 'bakery too', createdAt: new Date(Date.UTC(2026, 4, 1, 5, 30)).toISOString() }));
    });
    const ids = (page: { runs: Array<{ id: string }> }) => page.runs.map((run) => run.id);

    it('lists a tenant newest first and pages with a stable cursor', async () => {
      const seen: string[] = [];
      let cursor: string | undefined;
      let pages = 0;
      do {
        const page = await store.listRuns({ tenant, limit: 5, ...(cursor ? { cursor } : {}) });
        seen.push(...ids(page));
        cursor = page.nextCursor ?? undefined;
        pages += 1;
        // A run archived between pages, newer than all, shifts nothing on the following pages.
        if (pages === 1) await store.archiveRun(archiveOf({ id: 'run_list_late', tenant, prompt: 'a late arrival', createdAt: '2026-05-02T00:00:00.000Z' }));
      } while (cursor);
      expect(pages).toBe(3);
      expect(seen).toEqual(Array.from({ length: 12 }, (_, index) => `run_list_${String(11 - index).padStart(2, '0')}`));
      expect(ids(await store.listRuns({ tenant, limit: 1 }))).toEqual(['run_list_late']);
    });

    it('filters by status, time range, prompt text and tenant', async () => {
      expect(ids(await store.listRuns({ tenant, status: 'failed', limit: 50 }))).toEqual(['run_list_09', 'run_list_06', 'run_list_03', 'run_list_00']);
      const range = await store.listRuns({ tenant, from: '2026-05-01T03:00:00.000Z', to: '2026-05-01T06:00:00.000Z', limit: 50 });
      expect(ids(range)).toEqual(['run_list_05', 'run_list_04', 'run_list_03']);
      expect(ids(await store.listRuns({ tenant, text: 'bakery', limit: 50 }))).toEqual(['run_list_09', 'run_list_04']);
      expect(ids(await store.listRuns({ tenant, text: 'bakery warm', status: 'failed', limit: 50 }))).toEqual(['run_list_09']);
      expect(ids(await store.listRuns({ tenant, text: 'cupcakes', limit: 50 }))).toEqual([]);
      // No tenant: an admin's listing across tenants.
      expect(ids(await store.listRuns({ text: 'bakery', from: '2026-05-01T00:00:00Z', to: '2026-05-02T00:00:00Z', limit: 50 }))).toEqual(['run_list_09', 'run_list_other', 'run_list_04']);
    });

    it('refuses a cursor it did not hand out, and limits out of range', async () => {
      await expect(store.listRuns({ tenant, limit: 5, cursor: 'not-a-cursor' })).rejects.toThrow(HistoryCursorInvalid);
      const forged = Buffer.from(JSON.stringify({ createdAt: 'yesterday', id: 'x' })).toString('base64url');
      await expect(store.listRuns({ tenant, limit: 5, cursor: forged })).rejects.toThrow(HistoryCursorInvalid);
      await expect(store.listRuns({ tenant, limit: 0 })).rejects.toThrow();
      await expect(store.listRuns({ tenant, limit: 201 })).rejects.toThrow();
    });

    it('sums a tenant’s spend per UTC day', async () => {
      await store.archiveRun(archiveOf({ id: 'run_list_next_day', tenant, prompt: 'the next day', createdAt: '2026-05-03T23:59:59.000Z', costMicroUsd: 7 }));
      expect(await store.spendByDay({ tenant, from: '2026-05-01', to: '2026-05-03' })).toEqual([
        // 1_000 + 2_000 + … + 12_000
        { day: '2026-05-01', costMicroUsd: 78_000, runs: 12 },
        { day: '2026-05-02', costMicroUsd: 1_000, runs: 1 },
        { day: '2026-05-03', costMicroUsd: 7, runs: 1 },
      ]);
      expect(await store.spendByDay({ tenant, from: '2026-05-02', to: '2026-05-02' })).toEqual([{ day: '2026-05-02', costMicroUsd: 1_000, runs: 1 }]);
      await expect(store.spendByDay({ tenant, from: '2026-05-03', to: '2026-05-01' })).rejects.toThrow(/from must not be after to/);
    });
  });
});
