// Every listing the history store runs is served by an index: EXPLAIN of the exact statements
// (history-queries.ts) over a table big enough that the planner would rather scan than walk an
// index it cannot use. The plans are printed (docs/history.md quotes them).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listRunsQuery, spendByDayQuery, type HistoryQuery } from '../../src/history/history-queries.js';
import { encodeHistoryCursor } from '../../src/history/history-cursor.js';
import { overviewRunsQuery } from '../../src/history/overview-queries.js';
import { createTestDatabase, type TestDatabase } from '../support/postgres.js';

const RUNS = 20_000;

interface PlanNode {
  'Node Type': string;
  'Relation Name'?: string;
  'Index Name'?: string;
  Plans?: PlanNode[];
}

function nodesOf(plan: PlanNode): PlanNode[] {
  return [plan, ...(plan.Plans ?? []).flatMap(nodesOf)];
}

describe('history listing queries', () => {
  let database: TestDatabase;

  beforeAll(async () => {
    database = await createTestDatabase('historyexplain');
    // Raw SQL on purpose: 20,000 archives through archiveRun would only slow the test; the planner
    // needs the volume and the distribution (50 tenants, mostly succeeded, a rare prompt word, 60
    // days), not the child rows.
    await database.pool.query(
      `INSERT INTO runs (id, tenant, status, error_code, error_message, model, prompt, phase, turns,
         input_tokens, cache_write_5m_input_tokens, cache_write_1h_input_tokens, cache_read_input_tokens, output_tokens,
         cost_micro_usd, budget, result, latest_deploy, live_deploy, trace_id, created_at, ended_at, max_tokens, todos, files)
       SELECT 'run_' || n, 'tenant_' || (n % 50),
         CASE WHEN n % 100 < 90 THEN 'succeeded' WHEN n % 100 < 97 THEN 'failed' WHEN n % 100 < 99 THEN 'refused' ELSE 'cancelled' END,
         NULL, NULL, 'claude-sonnet-4-6',
         CASE WHEN n % 200 = 7 THEN 'a landing page for a bakery number ' || n ELSE 'portfolio site for client ' || n || ' with a gallery' END,
         'done', 12, 1000, 0, 0, 5000, 800, n % 9000, NULL, NULL, NULL, NULL, NULL,
         timestamptz '2026-03-01 00:00:00+00' + (n * interval '259 seconds'),
         timestamptz '2026-03-01 00:05:00+00' + (n * interval '259 seconds'),
         8192, '[]'::jsonb, '[]'::jsonb
       FROM generate_series(1, $1) AS n`,
      [RUNS],
    );
    await database.pool.query('ANALYZE runs');
  }, 120_000);
  afterAll(async () => {
    await database?.drop();
  });

  async function plan(query: HistoryQuery): Promise<PlanNode> {
    const result = await database.pool.query(`EXPLAIN (FORMAT JSON) ${query.text}`, query.values);
    const text = await database.pool.query(`EXPLAIN ${query.text}`, query.values);
    console.log(`${query.text}\n${text.rows.map((row) => row['QUERY PLAN']).join('\n')}\n`);
    return (result.rows[0]['QUERY PLAN'] as Array<{ Plan: PlanNode }>)[0]!.Plan;
  }

  const cursor = encodeHistoryCursor({ createdAt: '2026-03-20T00:00:00.000Z', id: 'run_6000' });
  // `indexes`: the index the plan must use, or the ones it may choose between (a tenant's runs are a
// few hundred rows, often fewer to filter than the prompt index would find).
  const listings: Array<{ name: string; query: HistoryQuery; indexes: string[] }> = [
    { name: 'a tenant, newest first', query: listRunsQuery({ tenant: 'tenant_7', limit: 50 }), indexes: ['runs_tenant_created_idx'] },
    { name: 'a tenant, next page', query: listRunsQuery({ tenant: 'tenant_7', limit: 50, cursor }), indexes: ['runs_tenant_created_idx'] },
    { name: 'a tenant in a time range', query: listRunsQuery({ tenant: 'tenant_7', from: '2026-03-10T00:00:00Z', to: '2026-03-17T00:00:00Z', limit: 50 }), indexes: ['runs_tenant_created_idx'] },
    { name: 'every cancelled run', query: listRunsQuery({ status: 'cancelled', limit: 50 }), indexes: ['runs_status_created_idx'] },
    { name: 'failed runs of one week', query: listRunsQuery({ status: 'failed', from: '2026-03-10T00:00:00Z', to: '2026-03-17T00:00:00Z', limit: 50 }), indexes: ['runs_status_created_idx'] },
    { name: 'every run of one day (admin)', query: listRunsQuery({ from: '2026-03-10T00:00:00Z', to: '2026-03-11T00:00:00Z', limit: 50 }), indexes: ['runs_created_idx'] },
    { name: 'prompt mentions "bakery"', query: listRunsQuery({ text: 'bakery', limit: 50 }), indexes: ['runs_prompt_search_idx'] },
    { name: 'a tenant’s runs mentioning "bakery"', query: listRunsQuery({ tenant: 'tenant_7', text: 'bakery', limit: 50 }), indexes: ['runs_prompt_search_idx', 'runs_tenant_created_idx', 'runs_tenant_day_cost_idx'] },
    { name: 'spend per day of a tenant', query: spendByDayQuery({ tenant: 'tenant_7', from: '2026-03-01', to: '2026-03-31' }), indexes: ['runs_tenant_day_cost_idx'] },
    // The fleet overview (GET /v1/overview): its runs statement, and the range its other statements start from.
    { name: 'the overview of a tenant, 7 days', query: overviewRunsQuery({ tenant: 'tenant_7', from: '2026-03-10T00:00:00Z', bucketSeconds: 10_800, buckets: 56 }), indexes: ['runs_tenant_created_idx', 'runs_tenant_day_cost_idx'] },
    { name: 'the overview of every tenant, 24 hours', query: overviewRunsQuery({ from: '2026-03-10T00:00:00Z', bucketSeconds: 1_800, buckets: 48 }), indexes: ['runs_created_idx'] },
  ];

  for (const listing of listings) {
    it(`serves ${listing.name} from ${listing.indexes.join(' or ')}`, async () => {
      const nodes = nodesOf(await plan(listing.query));
      expect(nodes.filter((node) => node['Node Type'] === 'Seq Scan')).toEqual([]);
      const used = nodes.map((node) => node['Index Name']).filter((name): name is string => Boolean(name));
      expect(used.some((name) => listing.indexes.includes(name)), `indexes used: ${used.join(', ')}`).toBe(true);
    });
  }
});
