// `buildfleet dev`: starts the local fleet and keeps it up until Ctrl-C.
import { parseArgs } from 'node:util';
import { startDevFleet } from './dev-fleet.js';

export async function runDevCommand(argv: string[]): Promise<number> {
  const { values } = parseArgs({
    args: argv,
    options: { 'model-workers': { type: 'string', default: '1' }, 'tool-workers': { type: 'string', default: '1' }, verbose: { type: 'boolean', default: false } },
  });
  console.error('starting the dev fleet…');
  const fleet = await startDevFleet({
    modelWorkers: Number(values['model-workers']),
    toolWorkers: Number(values['tool-workers']),
    echo: values.verbose ? process.stderr : null,
  });
  console.error(`redis: ${fleet.redisUrl}${fleet.simulatorUrl ? `  simulator: ${fleet.simulatorUrl}` : ''}`);
  console.error(`API docs: ${fleet.apiUrl}/docs   submit with: npm run buildfleet -- submit "a landing page" --follow`);
  console.error(`API key (tenant dev, every scope; also in .buildfleet/dev.json, revoked on exit): ${fleet.apiKey}`);
  console.log(fleet.apiUrl);
  await new Promise<void>((resolve) => {
    process.once('SIGINT', () => resolve());
    process.once('SIGTERM', () => resolve());
  });
  console.error('stopping the dev fleet…');
  await fleet.stop();
  return 0;
}
