// `npm run demo`: the dev fleet, one sample build followed to the end, and the published
// site's URL (on the sites origin). With --once or CI=true it then exits (0 on success); otherwise
// it keeps serving the site until Ctrl-C.
import { parseArgs } from 'node:util';
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
    },
  });
  const once = values.once || process.env.CI === 'true' || process.env.CI === '1';
  const started = performance.now();
  console.log('starting the dev fleet (redis-server, PostgreSQL, simulator, API with its sites origin, model worker, tool worker)…');
  const fleet = await startDevFleet({ echo: values.verbose ? process.stderr : null, simulatorArgs: ['--profile', values.profile] });
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
  }
  return code;
}
