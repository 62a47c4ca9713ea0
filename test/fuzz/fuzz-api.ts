// `npm run fuzz`: ≥ 10,000 hostile requests against an in-process API (REDIS_URL, or a private
// redis-server started for the run), plus random inputs through every tool's input schema.
// Prints the figures; exits 1 on any 5xx answer or crash.
//   npm run fuzz -- [--requests N] [--tool-inputs N] [--seed S] [--max-seconds T] [--concurrency C]
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { startPrivateRedis, type PrivateRedis } from '../../src/dev/private-redis.js';
import { runApiFuzz } from './api-fuzzer.js';
import { fuzzToolInputs } from './fuzz-tool-inputs.js';

const { values } = parseArgs({
  options: {
    requests: { type: 'string', default: '10000' },
    'tool-inputs': { type: 'string', default: '20000' },
    seed: { type: 'string' },
    'max-seconds': { type: 'string', default: '300' },
    concurrency: { type: 'string', default: '16' },
  },
});
const seed = values.seed ? Number(values.seed) : Math.floor(Math.random() * 2 ** 31);

let redis: PrivateRedis | null = null;
const dataDir = mkdtempSync(join(tmpdir(), 'buildfleet-fuzz-redis-'));
let redisUrl = process.env.REDIS_URL;
if (!redisUrl) {
  redis = await startPrivateRedis({ dataDir });
  redisUrl = redis.url;
  console.log(`[fuzz] private redis-server on ${redisUrl}`);
}

let failed = false;
try {
  console.log(`[fuzz] seed ${seed}: ${values.requests} API requests (at most ${values['max-seconds']} s), ${values['tool-inputs']} tool inputs`);
  const tools = fuzzToolInputs({ count: Number(values['tool-inputs']), seed });
  console.log(`[fuzz] tool inputs: ${tools.inputs} (accepted ${tools.accepted}, rejected ${tools.rejected}), crashes ${tools.crashes.length}`);
  for (const crash of tools.crashes.slice(0, 10)) console.log(`  tool input crash: ${crash}`);

  const report = await runApiFuzz({
    redisUrl,
    requests: Number(values.requests),
    seed,
    maxDurationMs: Number(values['max-seconds']) * 1000,
    concurrency: Number(values.concurrency),
    log: (line) => console.log(line),
  });
  const classes = Object.entries(report.byStatusClass)
    .map(([name, count]) => `${name} ${count}`)
    .join(', ');
  console.log(`[fuzz] API requests: ${report.requests} in ${(report.durationMs / 1000).toFixed(1)} s (${Math.round(report.requests / (report.durationMs / 1000))}/s)`);
  console.log(`[fuzz] by status class: ${classes}`);
  console.log(`[fuzz] 5xx: ${report.byStatusClass['5xx']}, crashes: ${report.crashes.length}`);
  for (const error of report.serverErrors.slice(0, 20)) console.log(`  5xx: ${error}`);
  for (const crash of report.crashes.slice(0, 20)) console.log(`  crash: ${crash}`);
  failed = report.byStatusClass['5xx'] > 0 || report.crashes.length > 0 || tools.crashes.length > 0;
  console.log(failed ? `[fuzz] FAILED (replay with --seed ${seed})` : '[fuzz] passed');
} finally {
  await redis?.stop();
  rmSync(dataDir, { recursive: true, force: true });
}
process.exit(failed ? 1 : 0);
