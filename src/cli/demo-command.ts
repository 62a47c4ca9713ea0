// `npm run demo`: the dev fleet, one sample build followed to the end, and the published
// site's URL (on the sites origin). With --once or CI=true it then exits (0 on success); otherwise
// it keeps serving the site until Ctrl-C.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { devHomeHolder } from '../dev/dev-home-lock.js';
import { DEV_STATE_DIR } from './dev-state.js';
import { MAX_QUEUE_SHARDS } from '../domain/queue-shards.js';
import { runSampleBuild } from './demo-sample-build.js';
import { startDevFleet } from './dev-fleet.js';
import { formatCacheHit, formatUsd } from './follow-run.js';

export { SAMPLE_PROMPT } from './demo-sample-build.js';

export async function runDemoCommand(argv: string[]): Promise<number> {
  const { values } = parseArgs({
    args: argv,
    options: {
      once: { type: 'boolean', default: false },
      verbose: { type: 'boolean', default: false },
      // The simulator's `fast` profile: a production model's pages and pacing at 10x speed, so the
      // demo shows a streamed answer advancing and a real-looking site in well under a minute.
      profile: { type: 'string', default: 'fast' },
      // The same build on a local Redis Cluster (3 primaries, 3 replicas) and N queue shards.
      'redis-cluster': { type: 'boolean', default: false },
      shards: { type: 'string', default: '1' },
    },
  });
  const shards = parseShardCount(values.shards);
  const once = values.once || process.env.CI === 'true' || process.env.CI === '1';
  const started = performance.now();
  const redisPart = values['redis-cluster'] ? 'a local Redis Cluster of 3 primaries and 3 replicas' : 'redis-server';
  const workerPart = shards > 1 ? `a model worker and a tool worker for each of ${shards} queue shards` : 'model worker, tool worker';
  console.log(`starting the dev fleet (${redisPart}, PostgreSQL, simulator, API with its sites origin, ${workerPart})…`);
  // A `dev` running beside the demo keeps its state file (the CLI's way to it) in .buildfleet/: the
  // demo then writes its own elsewhere, so neither the file nor, on the demo's exit, its removal
  // takes the CLI away from that fleet.
  const devRunning = devHomeHolder({ homeDir: DEV_STATE_DIR });
  const ownStateDir = devRunning === null ? null : mkdtempSync(join(tmpdir(), 'buildfleet-demo-'));
  const fleet = await startDevFleet({
    echo: values.verbose ? process.stderr : null,
    simulatorArgs: ['--profile', values.profile],
    redisCluster: values['redis-cluster'],
    shards,
    ...(ownStateDir ? { stateFile: join(ownStateDir, 'dev.json') } : {}),
  }).catch((error: unknown) => {
    if (ownStateDir) rmSync(ownStateDir, { recursive: true, force: true });
    throw error;
  });
  let code = 1;
  try {
    console.log(`API: ${fleet.apiUrl}  (docs at ${fleet.apiUrl}/docs)  sites: ${fleet.sitesUrl}`);
    if (fleet.stateFile) console.log(`run console: ${fleet.consoleUrl}/  (sign in with "devKey" from ${fleet.stateFile}; docs/console.md)`);
    const outcome = await runSampleBuild({ apiUrl: fleet.apiUrl, apiKey: fleet.apiKey, log: (line) => console.log(line) });
    if (!outcome.ok) {
      console.error(outcome.problem);
      code = 1;
    } else {
      const seconds = ((performance.now() - started) / 1000).toFixed(1);
      const { view } = outcome;
      console.log(`done in ${seconds} s: ${view.turn} turns, cost ${formatUsd(view.costUsd)}, cache hit ${formatCacheHit(view.cacheHitRatio)}`);
      console.log(`published site: ${outcome.siteUrl}`);
      code = 0;
    }
    if (!once && code === 0) {
      console.log('serving the site and the run console until Ctrl-C…');
      await new Promise<void>((resolve) => {
        process.once('SIGINT', () => resolve());
        process.once('SIGTERM', () => resolve());
      });
    }
  } finally {
    await fleet.stop();
    if (ownStateDir) rmSync(ownStateDir, { recursive: true, force: true });
  }
  return code;
}

/** `--shards N`: a whole number of queue shards, 1 to MAX_QUEUE_SHARDS. */
export function parseShardCount(text: string): number {
  const shards = Number(text);
  if (!Number.isInteger(shards) || shards < 1 || shards > MAX_QUEUE_SHARDS)
    throw new Error(`--shards: expected a whole number from 1 to ${MAX_QUEUE_SHARDS}, not ${JSON.stringify(text)}`);
  return shards;
}
