// `buildfleet dev` keeps its fleet in its home (.buildfleet/; here a temporary directory of this
// test, never the checkout's): Redis, the PostgreSQL of run history, the site store and the ports it
// listened on. A build, a stop and a start again: the run is still in `list` and in the history
// database, the same PostgreSQL cluster (initdb ran once) on the same port, and the site links the
// run handed out before the restart — the run view's and the publish result's — answer again.
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { runDevCommand } from '../../src/cli/dev-command.js';
import { runSampleBuild } from '../../src/cli/demo-sample-build.js';
import { SUITE_MODEL } from '../support/suite-model.js';
import { until } from '../support/until.js';

const home = mkdtempSync(join(tmpdir(), 'buildfleet-dev-home-'));
// As root, PostgreSQL runs as the `postgres` user, which must pass through this directory to reach
// its cluster (mkdtemp makes it 0700), as it passes through the checkout to reach .buildfleet/.
chmodSync(home, 0o755);

afterAll(() => rmSync(home, { recursive: true, force: true }));

interface DevState {
  apiUrl: string;
  sitesUrl: string;
  devKey: string;
}

interface StartedDev {
  state: DevState;
  databaseUrl: string;
  stderr: () => string;
  stop(): Promise<void>;
}

/** `buildfleet dev` as the command runs it, with this test's home; resolves once it is up. */
async function startDev(): Promise<StartedDev> {
  const stderr = new PassThrough();
  const chunks: Buffer[] = [];
  stderr.on('data', (chunk: Buffer) => chunks.push(chunk));
  const text = () => Buffer.concat(chunks).toString('utf8');
  let stop = () => {};
  const untilStopped = new Promise<void>((resolve) => (stop = resolve));
  const finished = runDevCommand([], {
    stdout: new PassThrough(),
    stderr,
    untilStopped,
    fleetOptions: {
      homeDir: home,
      // '' stands for unset (the suite runs with both): dev's own Redis and PostgreSQL, in the home.
      // LOG_LEVEL info: the fleet waits for each worker's "worker started" line.
      env: { REDIS_URL: '', BUILDFLEET_REDIS_CLUSTER_NODES: '', DATABASE_URL: '', BUILDFLEET_SITES_DIR: '', BUILDFLEET_MODEL: SUITE_MODEL, LOG_LEVEL: 'info', ANTHROPIC_API_KEY: '', ANTHROPIC_BASE_URL: '' },
    },
  });
  let failed: unknown = null;
  finished.catch((error: unknown) => (failed = error));
  // Generous: the first start runs initdb, slow on a loaded machine.
  await until('dev to come up', async () => failed !== null || text().includes('API key (tenant dev'), 240_000);
  if (failed !== null) throw failed;
  const databaseUrl = /history: (postgres:\/\/\S+)/.exec(text())?.[1] ?? '';
  return {
    state: JSON.parse(readFileSync(join(home, 'dev.json'), 'utf8')) as DevState,
    databaseUrl,
    stderr: text,
    async stop() {
      stop();
      await finished;
    },
  };
}

async function historyStatus(databaseUrl: string, runId: string): Promise<string | null> {
  const client = new pg.Client({ connectionString: databaseUrl });
  client.on('error', () => undefined);
  await client.connect();
  try {
    const rows = (await client.query<{ status: string }>('SELECT status FROM runs WHERE id = $1', [runId])).rows;
    return rows[0]?.status ?? null;
  } finally {
    await client.end();
  }
}

async function publishedUrl(state: DevState, runId: string): Promise<string | undefined> {
  const response = await fetch(`${state.apiUrl}/v1/runs/${runId}/tool-calls?limit=100`, { headers: { authorization: `Bearer ${state.devKey}` } });
  expect(response.status).toBe(200);
  const page = (await response.json()) as { toolCalls: Array<{ tool: string; result: { output?: { url?: string } } | null }> };
  return page.toolCalls.find((call) => call.tool === 'publish')?.result?.output?.url;
}

describe('buildfleet dev across a restart', () => {
  it('keeps the run in list and in history, and its site links answer again', async () => {
    const first = await startDev();
    let runId: string;
    let siteUrl: string;
    let publishLink: string | undefined;
    try {
      expect(first.databaseUrl).toMatch(/^postgres:\/\/postgres@127\.0\.0\.1:\d+\/postgres$/);
      const outcome = await runSampleBuild({ apiUrl: first.state.apiUrl, apiKey: first.state.devKey, log: () => undefined });
      expect(outcome.ok ? null : outcome.problem).toBeNull();
      if (!outcome.ok) return;
      runId = outcome.view.id;
      siteUrl = outcome.siteUrl;
      // The tool worker archives the finished run by itself.
      await until('the run to be archived', async () => (await historyStatus(first.databaseUrl, runId)) === 'succeeded');
      publishLink = await publishedUrl(first.state, runId);
      expect(publishLink).toBe(siteUrl);
    } finally {
      await first.stop();
    }
    // What dev keeps is in its home; the cluster's postmaster.pid went with the server.
    for (const kept of ['redis', 'postgres/data/PG_VERSION', 'sites', 'ports.json']) expect(existsSync(join(home, kept)), kept).toBe(true);
    expect(existsSync(join(home, 'postgres/data/postmaster.pid'))).toBe(false);
    // The home is free for the next dev (dev-home-lock.ts).
    expect(existsSync(join(home, 'dev.pid'))).toBe(false);
    expect((await fetch(siteUrl).catch(() => null))?.status).toBeUndefined();

    const second = await startDev();
    try {
      // The same listeners: the links handed out before the restart name them.
      expect(second.state.apiUrl).toBe(first.state.apiUrl);
      expect(second.state.sitesUrl).toBe(first.state.sitesUrl);
      expect(second.databaseUrl).toBe(first.databaseUrl);
      expect(second.stderr()).not.toContain('was taken');
      expect(await historyStatus(second.databaseUrl, runId)).toBe('succeeded');
      // `buildfleet list` reads GET /v1/runs.
      const listed = await fetch(`${second.state.apiUrl}/v1/runs?limit=100`, { headers: { authorization: `Bearer ${second.state.devKey}` } });
      expect(listed.status).toBe(200);
      const page = (await listed.json()) as { runs: Array<{ id: string; status: string }> };
      expect(page.runs.find((run) => run.id === runId)?.status).toBe('succeeded');
      for (const link of [siteUrl, publishLink!]) {
        const site = await fetch(link);
        expect(site.status, link).toBe(200);
        expect(await site.text()).toContain('<html');
      }
    } finally {
      await second.stop();
    }
  }, 600_000);
});
