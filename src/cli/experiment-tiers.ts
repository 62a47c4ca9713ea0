// `buildfleet experiment tiers --runs N`: N builds in each of four arms — every tool at once
// (the 19 plus fillers to 47) vs tiered by phase, with text tool-call recovery off and on — on
// a real in-process fleet with the simulator, whose models write calls as text more often as the
// tool list grows. Prints tool_use_rate, json_in_text_rate, recovery rate and verified finishes
// (counted as experiment-arm-tally.ts says; `experiment providers` counts the same way).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { tieredTools, type ToolsOffered } from '../agent/run-model-turn.js';
import type { Phase } from '../domain/profile.js';
import type { RunRecord } from '../engine/index.js';
import { allAnthropicTools } from '../tools/tool-definitions.js';
import { FILLER_TOOLS } from './experiment-filler-tools.js';
import { findAgent, SITE_BUILDER, type Agent } from '../agents/index.js';
import { startInProcessFleet } from '../dev/in-process-fleet.js';
import { startPrivateRedis, type PrivateRedis } from '../dev/private-redis.js';
import { armTallyHooks, formatArmTable, newArmTally, verifiedShare, type ArmTally } from './experiment-arm-tally.js';
import { runArmBuilds } from './experiment-arm-builds.js';

const siteBuilder = (): Agent => findAgent(SITE_BUILDER) as Agent;

/** Every tool plus the fillers for runs of a `flat` arm (run option toolLayout), else the tier. */
function experimentToolsFor(phase: Phase, run: RunRecord): ToolsOffered {
  if (run.options.toolLayout !== 'flat') return tieredTools(siteBuilder(), phase);
  const definitions = [...allAnthropicTools(), ...FILLER_TOOLS];
  return { names: definitions.map((tool) => tool.name), definitions };
}

interface Arm {
  name: string;
  layout: 'flat' | 'tiered';
  recovery: boolean;
}

const ARMS: Arm[] = [
  { name: 'flat, recovery off', layout: 'flat', recovery: false },
  { name: 'flat, recovery on', layout: 'flat', recovery: true },
  { name: 'tiered, recovery off', layout: 'tiered', recovery: false },
  { name: 'tiered, recovery on', layout: 'tiered', recovery: true },
];

export async function runTiersExperiment(options: { runs: number; redisUrl?: string; concurrency?: number; seed?: number }): Promise<ArmTally[]> {
  let redis: PrivateRedis | null = null;
  const dataDir = mkdtempSync(join(tmpdir(), 'buildfleet-experiment-'));
  const redisUrl = options.redisUrl ?? (redis = await startPrivateRedis({ dataDir })).url;
  const armOfRun = new Map<string, ArmTally>();
  const tallies = ARMS.map((arm) => newArmTally(arm.name));
  const fleet = await startInProcessFleet({
    redisUrl,
    modelWorkers: 2,
    toolWorkers: 2,
    // The flat arms' layout is this experiment's, injected into its model workers: the
    // production turn knows only the tiers.
    modelWorker: { hooks: armTallyHooks((runId) => armOfRun.get(runId)), toolsFor: experimentToolsFor },
    ...(options.seed !== undefined ? { simulator: { seed: options.seed } } : {}),
  });
  try {
    // Arm after arm: the builds are queued in this order and taken `concurrency` at a time.
    const builds = ARMS.flatMap((arm, index) =>
      Array.from({ length: options.runs }, (_, run) => ({
        tally: tallies[index]!,
        input: { prompt: `Build a small website for bakery number ${run + 1} (${arm.name}).`, options: { toolLayout: arm.layout, textRecovery: arm.recovery } },
      })),
    );
    await runArmBuilds({ fleet, builds, armOfRun, concurrency: options.concurrency ?? 10, timeoutMs: 120_000 });
  } finally {
    await fleet.close();
    await redis?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
  return tallies;
}

export async function runTiersExperimentCommand(argv: string[]): Promise<number> {
  const { values } = parseArgs({ args: argv, options: { runs: { type: 'string', default: '50' }, seed: { type: 'string' } } });
  const runs = Number(values.runs);
  if (!Number.isInteger(runs) || runs < 1 || runs > 10_000) throw new Error('--runs must be a whole number from 1 to 10000');
  console.error(`running ${runs} builds in each of 4 arms…`);
  const tallies = await runTiersExperiment({
    runs,
    ...(process.env.REDIS_URL ? { redisUrl: process.env.REDIS_URL } : {}),
    ...(values.seed ? { seed: Number(values.seed) } : {}),
  });
  console.log(formatArmTable(tallies));
  return verifiedShare(tallies[3]!) >= 0.99 ? 0 : 1;
}
