// The bench talks to a fleet the way a client does: the REST API (docs/api or /docs of a running
// API). It never reads a run's Redis keys, so it keeps working while the run store changes shape.

export interface RunSummary {
  id: string;
  status: string;
  turn: number;
}

export interface RunEvent {
  /** The Redis stream id: `<milliseconds>-<sequence>`. */
  id: string;
  event: string;
}

type JobCounts = Record<string, number>;

export interface QueueCounts {
  model: JobCounts;
  tool: JobCounts;
}

/** A run still advancing by itself. Anything else (terminal, or waiting_for_input) is settled:
 * the bench only needs "will this run take more turns without a client", not the full list. */
const ADVANCING_STATUSES: ReadonlySet<string> = new Set(['queued', 'running']);

export function isSettled(status: string): boolean {
  return !ADVANCING_STATUSES.has(status);
}

/** Jobs of a queue that are not finished: a run in flight holds exactly one model-queue job here
 * (waiting, active, delayed, or its next turn waiting for its tool children). */
export function unfinishedJobs(counts: JobCounts): number {
  return Object.entries(counts)
    .filter(([state]) => state !== 'completed' && state !== 'failed')
    .reduce((sum, [, count]) => sum + count, 0);
}

export interface FleetRestClient {
  submitRun(input: { prompt: string }): Promise<string>;
  getRun(runId: string): Promise<RunSummary>;
  /** Every run of the key's tenant, newest first (GET /v1/runs, all pages). */
  listRuns(): Promise<RunSummary[]>;
  /** GET /v1/runs/:id/events as JSON. */
  runEvents(runId: string): Promise<RunEvent[]>;
  /** GET /v1/admin/queues (admin scope). */
  queueCounts(): Promise<QueueCounts>;
}

export function createFleetRestClient({ baseUrl, apiKey }: { baseUrl: string; apiKey?: string }): FleetRestClient {
  const headers: Record<string, string> = apiKey ? { authorization: `Bearer ${apiKey}` } : {};
  const request = async <T>(path: string, init: { method?: string; body?: unknown; accept?: string } = {}): Promise<T> => {
    const response = await fetch(`${baseUrl}${path}`, {
      method: init.method ?? 'GET',
      headers: {
        ...headers,
        accept: init.accept ?? 'application/json',
        ...(init.body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      ...(init.body === undefined ? {} : { body: JSON.stringify(init.body) }),
      signal: AbortSignal.timeout(60_000),
    });
    const text = await response.text();
    if (!response.ok) throw new Error(`${init.method ?? 'GET'} ${path}: ${response.status} ${text.slice(0, 200)}`);
    return JSON.parse(text) as T;
  };
  return {
    async submitRun({ prompt }) {
      const body = await request<{ id?: string }>('/v1/runs', { method: 'POST', body: { prompt } });
      if (!body.id) throw new Error(`POST /v1/runs answered without an id: ${JSON.stringify(body).slice(0, 200)}`);
      return body.id;
    },
    getRun: (runId) => request<RunSummary>(`/v1/runs/${encodeURIComponent(runId)}`),
    async listRuns() {
      const runs: RunSummary[] = [];
      let cursor: string | null = null;
      // Bounded: 100 runs a page, at most 1,000 pages.
      for (let page = 0; page < 1000; page += 1) {
        const query: string = cursor === null ? '' : `&cursor=${encodeURIComponent(cursor)}`;
        const body: { runs: RunSummary[]; nextCursor: string | null } = await request(`/v1/runs?limit=100${query}`);
        runs.push(...body.runs);
        cursor = body.nextCursor;
        if (cursor === null) break;
      }
      return runs;
    },
    runEvents: (runId) => request<RunEvent[]>(`/v1/runs/${encodeURIComponent(runId)}/events`),
    async queueCounts() {
      const body = await request<{ queues: QueueCounts }>('/v1/admin/queues');
      return body.queues;
    },
  };
}
