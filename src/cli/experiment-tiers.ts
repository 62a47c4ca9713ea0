// `buildfleet experiment tiers --runs N`: N builds in each of four arms — every tool at once
// (the 19 plus fillers to 47) vs tiered by phase, with text tool-call recovery off and on — on
// a real in-process fleet with the simulator, whose models write calls as text more often as the
// tool list grows. Prints tool_use_rate, json_in_text_rate, recovery rate and verified finishes.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { tieredTools, type ModelTurnHooks, type ToolsOffered } from '../agent/run-model-turn.js';
import type { Phase } from '../domain/profile.js';
import type { RunRecord } from '../engine/run-types.js';
import { allAnthropicTools } from '../tools/tool-definitions.js';
import { FILLER_TOOLS } from './experiment-filler-tools.js';
import { startInProcessFleet } from '../dev/in-process-fleet.js';
import { startPrivateRedis, type PrivateRedis } from '../dev/private-redis.js';

/** Every tool plus the fillers for runs of a `flat` arm (run option toolLayout), else the tier. */
function experimentToolsFor(phase: Phase, run: RunRecord): ToolsOffered {
  if (run.options.toolLayout !== 'flat') return tieredTools(phase);
  const definitions = [...allAnthropicTools(), ...FILLER_TOOLS];
  return { names: definitions.map((tool) => tool.name), definitions };
}

export interface ArmResult {
  arm: string;
  runs: number;
  expectedToolTurns: number;
  toolUseTurns: number;
  jsonInTextTurns: number;
  recoveredTurns: number;
  verifiedFinishes: number;
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

export async function runTiersExperiment(options: { runs: number; redisUrl?: string; concurrency?: number; seed?: number }): Promise<ArmResult[]> {
  let redis: PrivateRedis | null = null;
  const dataDir = mkdtempSync(join(tmpdir(), 'buildfleet-experiment-'));
  const redisUrl = options.redisUrl ?? (redis = await startPrivateRedis({ dataDir })).url;
  const armOfRun = new Map<string, ArmResult>();
  const results = ARMS.map((arm) => ({ arm: arm.name, runs: 0, expectedToolTurns: 0, toolUseTurns: 0, jsonInTextTurns: 0, recoveredTurns: 0, verifiedFinishes: 0 }));
  const hooks: ModelTurnHooks = {
    onDecision({ run, response, expectedTool, events }) {
      const result = armOfRun.get(run.id);
      if (!result || !expectedTool) return;
      result.expectedToolTurns += 1;
      if (response.stop_reason === 'tool_use') result.toolUseTurns += 1;
      const names = events.map((event) => event.event);
      if (names.includes('json-in-text') || names.includes('fence-only-stop')) result.jsonInTextTurns += 1;
      if (names.includes('tool-call-recover')) result.recoveredTurns += 1;
    },
  };
  const fleet = await startInProcessFleet({
    redisUrl,
    modelWorkers: 2,
    toolWorkers: 2,
    // The flat arms' layout is this experiment's, injected into its model workers: the
    // production turn knows only the tiers.
    modelWorker: { hooks, toolsFor: experimentToolsFor },
    ...(options.seed !== undefined ? { simulator: { seed: options.seed } } : {}),
  });
  try {
    for (const [index, arm] of ARMS.entries()) {
      const result = results[index]!;
      let next = 0;
      const lane = async () => {
        while (next < options.runs) {
          next += 1;
          const created = await fleet.submit({
            prompt: `Build a small website for bakery number ${next} (${arm.name}).`,
            options: { toolLayout: arm.layout, textRecovery: arm.recovery },
          });
          armOfRun.set(created.id, result);
          const finished = await fleet.waitForRun(created.id, 120_000);
          result.runs += 1;
          if (finished.status === 'succeeded' && finished.finishVerified) result.verifiedFinishes += 1;
        }
      };
      await Promise.all(Array.from({ length: options.concurrency ?? 10 }, lane));
    }
  } finally {
    await fleet.close();
    await redis?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
  return results;
}

const percent = (part: number, whole: number) => (whole === 0 ? '—' : `${((100 * part) / whole).toFixed(1)}%`);

export function formatTiersTable(results: ArmResult[]): string {
  const header = ['arm', 'runs', 'tool_use_rate', 'json_in_text_rate', 'recovery_rate', 'verified finishes'];
  const rows = results.map((result) => [
    result.arm,
    String(result.runs),
    percent(result.toolUseTurns, result.expectedToolTurns),
    percent(result.jsonInTextTurns, result.expectedToolTurns),
    percent(result.recoveredTurns, result.expectedToolTurns),
    percent(result.verifiedFinishes, result.runs),
  ]);
  const widths = header.map((title, column) => Math.max(title.length, ...rows.map((row) => row[column]!.length)));
  const line = (cells: string[]) => cells.map((cell, column) => cell.padEnd(widths[column]!)).join('  ').trimEnd();
  return [line(header), line(widths.map((width) => '-'.repeat(width))), ...rows.map(line)].join('\n');
}

export async function runTiersExperimentCommand(argv: string[]): Promise<number> {
  const { values } = parseArgs({ args: argv, options: { runs: { type: 'string', default: '50' }, seed: { type: 'string' } } });
  const runs = Number(values.runs);
  if (!Number.isInteger(runs) || runs < 1 || runs > 10_000) throw new Error('--runs must be a whole number from 1 to 10000');
  console.error(`running ${runs} builds in each of 4 arms…`);
  const results = await runTiersExperiment({
    runs,
    ...(process.env.REDIS_URL ? { redisUrl: process.env.REDIS_URL } : {}),
    ...(values.seed ? { seed: Number(values.seed) } : {}),
  });
  console.log(formatTiersTable(results));
  const tiered = results[3]!;
  return tiered.verifiedFinishes / tiered.runs >= 0.99 ? 0 : 1;
}
