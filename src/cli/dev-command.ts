// `buildfleet dev`: starts the local fleet and keeps it up until Ctrl-C.
//
// It never prints a secret: a terminal's scrollback, a CI log or a screen share keeps whatever a
// command prints. The Redis and PostgreSQL URLs are shown with their passwords redacted (redact-secrets.ts), and the
// dev key (an admin key) is not shown at all: the banner says where to read it — the state file,
// mode 600, which the other commands read it from anyway.
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { redactUrl } from '../telemetry/redact-secrets.js';
import { startDevFleet, type DevFleet, type DevFleetOptions } from './dev-fleet.js';
import { parseShardCount } from './demo-command.js';
import { UsageError } from './usage-error.js';
import { TIMING_PROFILE_NAMES } from '../sim/timing-profile.js';
import { DEV_STATE_DIR } from './dev-state.js';

/** The lines `dev` prints on stderr once the fleet is up: where everything is, and no secret. */
export function devFleetBanner(
  fleet: Pick<DevFleet, 'redisUrl' | 'redisClusterSeeds' | 'databaseUrl' | 'simulatorUrl' | 'apiUrl' | 'sitesUrl' | 'consoleUrl' | 'stateFile'>,
): string[] {
  return [
    `redis: ${
      fleet.redisClusterSeeds
        ? `cluster ${fleet.redisClusterSeeds
            .split(',')
            .map((seed) => redactUrl(seed))
            .join(',')}`
        : redactUrl(fleet.redisUrl)
    }  history: ${redactUrl(fleet.databaseUrl)}${fleet.simulatorUrl ? `  simulator: ${fleet.simulatorUrl}` : ''}`,
    `API docs: ${fleet.apiUrl}/docs   sites: ${fleet.sitesUrl}/sites/…   submit with: npm run buildfleet -- submit "a landing page" --follow`,
    `run console: ${fleet.consoleUrl}/ (sign in with an API key, e.g. the dev key below)`,
    fleet.stateFile
      ? `API key (tenant dev, every scope, revoked on exit): not printed; it is "devKey" in ${fleet.stateFile} (mode 600), which the other commands read`
      : 'API key (tenant dev, every scope, revoked on exit): not printed',
  ];
}

export interface DevCommandIo {
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WritableStream;
  /** Resolves when the fleet should stop (default: SIGINT, SIGTERM or SIGHUP). */
  untilStopped?: Promise<void>;
  /** Passed on to startDevFleet (tests: a home of their own, their Redis). The home defaults to
   * .buildfleet/, the state file to dev.json in the home. */
  fleetOptions?: DevFleetOptions;
}

function untilSignalled(): Promise<void> {
  return new Promise<void>((resolve) => {
    process.once('SIGINT', () => resolve());
    process.once('SIGTERM', () => resolve());
    // A closed terminal: stop as on Ctrl-C. Left to the default, Node exits at once and the
    // private PostgreSQL, which takes SIGHUP as "reload", would run on without its fleet.
    process.once('SIGHUP', () => resolve());
  });
}

export async function runDevCommand(argv: string[], io: DevCommandIo = { stdout: process.stdout, stderr: process.stderr }): Promise<number> {
  const { values } = parseArgs({
    args: argv,
    options: {
      'model-workers': { type: 'string', default: '1' },
      'tool-workers': { type: 'string', default: '1' },
      verbose: { type: 'boolean', default: false },
      'redis-cluster': { type: 'boolean', default: false },
      shards: { type: 'string', default: '1' },
      // The simulator's pacing: `instant` (a build in about a second) by default; `fast` paces
      // answers as a production model at 10x, so a build can be watched, answered or cancelled live.
      profile: { type: 'string', default: 'instant' },
    },
  });
  const shards = parseShardCount(values.shards);
  if (!(TIMING_PROFILE_NAMES as readonly string[]).includes(values.profile)) {
    throw new UsageError(`--profile is one of ${TIMING_PROFILE_NAMES.join(', ')}, not ${JSON.stringify(values.profile)}`);
  }
  io.stderr.write(`starting the dev fleet (simulator profile ${values.profile})…\n`);
  // `dev` is the one fleet with a home: Redis, history, sites and ports outlive the process.
  const homeDir = io.fleetOptions?.homeDir ?? DEV_STATE_DIR;
  const fleet = await startDevFleet({
    stateFile: join(homeDir, 'dev.json'),
    ...io.fleetOptions,
    homeDir,
    modelWorkers: Number(values['model-workers']),
    toolWorkers: Number(values['tool-workers']),
    redisCluster: values['redis-cluster'],
    shards,
    simulatorArgs: ['--profile', values.profile],
    echo: values.verbose ? io.stderr : null,
  });
  for (const line of [...devFleetBanner(fleet), ...fleet.notices]) io.stderr.write(`${line}\n`);
  io.stdout.write(`${fleet.apiUrl}\n`);
  await (io.untilStopped ?? untilSignalled());
  io.stderr.write('stopping the dev fleet…\n');
  await fleet.stop();
  return 0;
}
