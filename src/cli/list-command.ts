// `buildfleet list`: the tenant's runs as a table — id, status, agent, phase/turn, cost, created, the
// prompt's start — newest first, a page at a time (GET /v1/runs). The page carries no cost, so
// each row's cost is read from GET /v1/runs/:id, a few at a time.
import { runPageSchema } from '../api/api-schemas.js';
import type { z } from 'zod';
import type { ApiClient } from './api-client.js';
import type { CliIo } from './cli-io.js';
import { EXIT_CODES, type ExitCode } from './exit-codes.js';
import { formatUsd } from './follow-run.js';
import { formatTable } from './format-table.js';
import { readRunView, formatTime } from './run-summary.js';
import { UsageError } from './usage-error.js';

type RunPage = z.infer<typeof runPageSchema>;
type ListedRun = RunPage['runs'][number];

/** Cost reads in flight at once: enough to be quick, few enough not to load a small fleet. */
const COST_READS_AT_ONCE = 4;
const PROMPT_CHARS = 48;

export const LIST_OPTIONS = {
  status: { type: 'string' },
  from: { type: 'string' },
  to: { type: 'string' },
  prompt: { type: 'string' },
  tenant: { type: 'string' },
  limit: { type: 'string' },
  cursor: { type: 'string' },
  all: { type: 'boolean', default: false },
  json: { type: 'boolean', default: false },
} as const;

/** The query string of one page: the filters as given, the cursor of the page before. */
function pageQuery(values: ListOptions, limit: number, cursor: string | undefined): string {
  const query = new URLSearchParams();
  for (const name of ['status', 'from', 'to', 'prompt', 'tenant'] as const) {
    const value = values[name];
    if (value !== undefined) query.set(name, value);
  }
  query.set('limit', String(limit));
  if (cursor) query.set('cursor', cursor);
  return query.toString();
}

/** Each run's cost, or null where it could not be read (archived meanwhile and history down). */
async function readCosts(client: ApiClient, runs: readonly ListedRun[]): Promise<Map<string, number | null>> {
  const costs = new Map<string, number | null>();
  let next = 0;
  const worker = async () => {
    while (next < runs.length) {
      const run = runs[next++]!;
      costs.set(
        run.id,
        await readRunView({ client, runId: run.id }).then(
          (view) => view.costUsd,
          () => null,
        ),
      );
    }
  };
  await Promise.all(Array.from({ length: Math.min(COST_READS_AT_ONCE, runs.length) }, worker));
  return costs;
}

/** One page's rows. */
export function describeRuns(runs: readonly ListedRun[], costs: ReadonlyMap<string, number | null>): string[][] {
  return runs.map((run) => {
    const cost = costs.get(run.id);
    const prompt = run.prompt.replace(/\s+/g, ' ').trim();
    return [
      run.id,
      run.status,
      run.agent,
      `${run.phase}/${run.turn}`,
      cost === undefined || cost === null ? '?' : formatUsd(cost),
      formatTime(run.createdAt),
      prompt.length > PROMPT_CHARS ? `${prompt.slice(0, PROMPT_CHARS - 1)}…` : prompt,
    ];
  });
}

/** The options of `list`, as parseArgs read them with LIST_OPTIONS. */
export interface ListOptions {
  status?: string | undefined;
  from?: string | undefined;
  to?: string | undefined;
  prompt?: string | undefined;
  tenant?: string | undefined;
  limit?: string | undefined;
  cursor?: string | undefined;
  all?: boolean | undefined;
  json?: boolean | undefined;
}

/** Prints one page of the runs (every page with --all), as a table or as JSON. */
export async function runListCommand({ client, options: values, io }: { client: ApiClient; options: ListOptions; io: CliIo }): Promise<ExitCode> {
  const limit = values.limit === undefined ? 20 : Number(values.limit);
  if (!Number.isInteger(limit) || limit < 1 || limit > 100) throw new UsageError('--limit must be a whole number from 1 to 100');
  const pages: RunPage[] = [];
  let cursor = values.cursor;
  const rows: string[][] = [];
  for (;;) {
    const page = await client.requestValid({ path: `/v1/runs?${pageQuery(values, limit, cursor)}`, schema: runPageSchema });
    pages.push(page);
    if (!values.json) rows.push(...describeRuns(page.runs, await readCosts(client, page.runs)));
    cursor = page.nextCursor ?? undefined;
    if (!values.all || !cursor) break;
  }
  if (values.json) {
    // One page: the API's answer as it was; --all: every run, no cursor left to follow.
    io.print(JSON.stringify(values.all ? { runs: pages.flatMap((page) => page.runs), nextCursor: null } : pages[0], null, 2));
    return EXIT_CODES.ok;
  }
  if (rows.length === 0) io.print('no runs');
  else for (const line of formatTable({ headers: ['ID', 'STATUS', 'AGENT', 'PHASE/TURN', 'COST', 'CREATED', 'PROMPT'], rows })) io.print(line);
  if (cursor) io.print(`more: --cursor ${cursor}`);
  return EXIT_CODES.ok;
}
