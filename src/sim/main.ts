// `buildfleet sim [--port N] [--latency-ms MIN-MAX] [--host H] [--seed N]`: runs the simulator
// until SIGINT or SIGTERM. Prints `simulator listening on <url>`, which the dev fleet waits for.
import { parseArgs } from 'node:util';
import { pathToFileURL } from 'node:url';
import { startSimulator, type SimulatorOptions } from './simulator-server.js';

const USAGE = 'usage: buildfleet sim [--port N] [--latency-ms MIN-MAX] [--host HOST] [--seed N]';

function parseInteger(value: string, flag: string): number {
  const parsed = Number(value);
  if (!Number.isInteger(parsed) || parsed < 0) throw new Error(`${flag} expects a whole number, got "${value}"\n${USAGE}`);
  return parsed;
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
    },
    strict: true,
    allowPositionals: false,
  });
  const options: SimulatorOptions = {};
  if (values.port !== undefined) options.port = parseInteger(values.port, '--port');
  if (values.host !== undefined) options.host = values.host;
  if (values.seed !== undefined) options.seed = parseInteger(values.seed, '--seed');
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
