// `buildfleet sim [--port N] [--latency-ms MIN-MAX] [--host H] [--seed N] [--profile instant|realistic|fast]
// [--rate-limits RPM,ITPM,OTPM]`: runs the simulator
// until SIGINT or SIGTERM. Prints `simulator listening on <url>`, which the dev fleet waits for.
import { parseArgs } from 'node:util';
import { pathToFileURL } from 'node:url';
import { startSimulator, type SimulatorOptions } from './simulator-server.js';
import { isTimingProfileName, TIMING_PROFILE_NAMES } from './timing-profile.js';
import { readConversationScript } from './conversation-script.js';
import { isSimulatorPolicy, SIMULATOR_POLICIES } from './schema-policy.js';

const USAGE =
  `usage: buildfleet sim [--port N] [--latency-ms MIN-MAX] [--host HOST] [--seed N] [--profile ` +
  `${TIMING_PROFILE_NAMES.join('|')}] [--rate-limits RPM,ITPM,OTPM] [--max-recorded-requests N] [--script FILE] ` +
  `[--policy ${SIMULATOR_POLICIES.join('|')}] [--invalid-inputs SHARE]`;

function parseInteger(value: string, flag: string): number {
  const parsed = Number(value);
  if (!Number.isInteger(parsed) || parsed < 0) throw new Error(`${flag} expects a whole number, got "${value}"\n${USAGE}`);
  return parsed;
}

/** `--rate-limits RPM,ITPM,OTPM`: requests, input tokens and output tokens per minute (rate-limiter.ts). */
function parseRateLimits(value: string): NonNullable<SimulatorOptions['rateLimits']> {
  const parts = value.split(',');
  if (parts.length !== 3) throw new Error(`--rate-limits expects RPM,ITPM,OTPM, got "${value}"\n${USAGE}`);
  const [requests = '', input = '', output = ''] = parts;
  const perMinute = (text: string) => {
    const parsed = parseInteger(text, '--rate-limits');
    if (parsed < 1) throw new Error(`--rate-limits: every limit must be at least 1\n${USAGE}`);
    return parsed;
  };
  return { requestsPerMinute: perMinute(requests), inputTokensPerMinute: perMinute(input), outputTokensPerMinute: perMinute(output) };
}

/** Reads the command's flags into simulator options. */
export function parseSimulatorArguments(argv: string[]): SimulatorOptions {
  const { values } = parseArgs({
    args: argv,
    options: {
      port: { type: 'string' },
      'latency-ms': { type: 'string' },
      host: { type: 'string' },
      seed: { type: 'string' },
      profile: { type: 'string' },
      'rate-limits': { type: 'string' },
      'max-recorded-requests': { type: 'string' },
      script: { type: 'string' },
      policy: { type: 'string' },
      'invalid-inputs': { type: 'string' },
    },
    strict: true,
    allowPositionals: false,
  });
  const options: SimulatorOptions = {};
  if (values.port !== undefined) options.port = parseInteger(values.port, '--port');
  if (values.host !== undefined) options.host = values.host;
  if (values.seed !== undefined) options.seed = parseInteger(values.seed, '--seed');
  if (values.profile !== undefined) {
    if (!isTimingProfileName(values.profile)) throw new Error(`--profile expects one of ${TIMING_PROFILE_NAMES.join(', ')}, got "${values.profile}"\n${USAGE}`);
    options.profile = values.profile;
  }
  if (values['rate-limits'] !== undefined) options.rateLimits = parseRateLimits(values['rate-limits']);
  if (values.script !== undefined) options.script = readConversationScript(values.script);
  if (values.policy !== undefined) {
    if (!isSimulatorPolicy(values.policy)) throw new Error(`--policy expects one of ${SIMULATOR_POLICIES.join(', ')}, got "${values.policy}"\n${USAGE}`);
    options.policy = values.policy;
  }
  if (values['invalid-inputs'] !== undefined) {
    const share = Number(values['invalid-inputs']);
    if (values['invalid-inputs'].trim() === '' || !Number.isFinite(share) || share < 0 || share > 1)
      throw new Error(`--invalid-inputs expects a share from 0 to 1, got "${values['invalid-inputs']}"\n${USAGE}`);
    options.invalidInputShare = share;
  }
  if (values['max-recorded-requests'] !== undefined) {
    options.maxRecordedRequests = parseInteger(values['max-recorded-requests'], '--max-recorded-requests');
  }
  if (values['latency-ms'] !== undefined) {
    const [minimum = '', maximum] = values['latency-ms'].split('-');
    const min = parseInteger(minimum, '--latency-ms');
    const max = maximum === undefined ? min : parseInteger(maximum, '--latency-ms');
    if (max < min) throw new Error(`--latency-ms: MAX must be at least MIN\n${USAGE}`);
    options.latencyMs = { min, max };
  }
  return options;
}

/** Runs the simulator until SIGINT or SIGTERM, then closes it. */
export async function runSimulatorCommand(argv: string[]): Promise<void> {
  const simulator = await startSimulator(parseSimulatorArguments(argv));
  console.log(`simulator listening on ${simulator.url}`);
  await new Promise<void>((resolve) => {
    const stop = () => {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      resolve();
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
  });
  await simulator.close();
}

// Runnable on its own too: `node --import tsx src/sim/main.ts --port 8787`.
if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  runSimulatorCommand(process.argv.slice(2)).catch((error: unknown) => {
    console.error(error instanceof Error ? error.message : error);
    process.exitCode = 1;
  });
}
