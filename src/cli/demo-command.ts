// `npm run demo`: the dev fleet, one sample build followed to the end, and the published
// site's URL. With --once or CI=true it then exits (0 on success); otherwise it keeps serving
// the site until Ctrl-C.
import { parseArgs } from 'node:util';
import { ApiClient } from './api-client.js';
import { startDevFleet } from './dev-fleet.js';
import { followRun, formatCacheHit, formatUsd } from './follow-run.js';

export const SAMPLE_PROMPT =
  'Build a small website for "Harbor Lights Bakery": a home page with opening hours, an about page, and a simple stylesheet.';

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
  console.log('starting the dev fleet (redis-server, simulator, API, model worker, tool worker)…');
  const fleet = await startDevFleet({ echo: values.verbose ? process.stderr : null, simulatorArgs: ['--profile', values.profile] });
  let code = 1;
  try {
    console.log(`API: ${fleet.apiUrl}  (docs at ${fleet.apiUrl}/docs)`);
    const client = new ApiClient(fleet.apiUrl, fleet.apiKey);
    const created = await client.request<{ id: string }>('POST', '/v1/runs', { prompt: SAMPLE_PROMPT });
    console.log(`submitted ${created.id}: ${SAMPLE_PROMPT}`);
    const view = await followRun(client, created.id, (line) => console.log(line));
    const seconds = ((performance.now() - started) / 1000).toFixed(1);
    if (view.status !== 'succeeded' || !view.deployment.live) {
      console.error(`the demo build ended ${view.status}${view.error ? `: ${view.error.code} ${view.error.message}` : ''}`);
      code = 1;
    } else {
      const page = await fetch(view.deployment.live.url);
      const html = await page.text();
      if (!page.ok || !html.includes('<html')) {
        console.error(`the published site did not serve HTML (status ${page.status})`);
        code = 1;
      } else {
        console.log(`done in ${seconds} s: ${view.turn} turns, cost ${formatUsd(view.costUsd)}, cache hit ${formatCacheHit(view.cacheHitRatio)}`);
        console.log(`published site: ${view.deployment.live.url}`);
        code = 0;
      }
    }
    if (!once && code === 0) {
      console.log('serving the site until Ctrl-C…');
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
