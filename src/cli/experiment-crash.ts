// `buildfleet experiment crash`: builds run while model and tool worker processes are SIGKILLed
// at random moments (and restarted), and Redis is killed and restarted once from its AOF
// (appendfsync everysec). Then every run's workspace is audited for duplicated effects.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { Redis } from 'ioredis';
import { createKeySpace } from '../engine/keys.js';
import { RunEngine } from '../engine/run-engine.js';
import { auditRunEffects, type EffectAudit } from '../engine/audit-run-effects.js';
import { freePorts, startPrivateRedis } from '../dev/private-redis.js';
import { ApiClient } from './api-client.js';
import { spawnRole, type SpawnedRole } from './spawn-role.js';

export interface CrashExperimentResult {
  runs: number;
  finished: number;
  lost: number;
  failed: Array<{ id: string; status: string; error: string | null }>;
  duplicatedEffects: number;
  effects: EffectAudit;
  workerKills: number;
  redisRestarts: number;
  longestRecoveryMs: number;
  /** Turns the reaper handed to a new job (`run-resume` events: a job lost with Redis's last second). */
  reaperResumes: number;
  durationMs: number;
}

export interface CrashExperimentOptions {
  runs: number;
  killIntervalMs: { min: number; max: number };
  timeoutMs: number;
  log?: (line: string) => void;
}

const randomBetween = (min: number, max: number) => min + Math.random() * (max - min);

export async function runCrashExperiment(options: CrashExperimentOptions): Promise<CrashExperimentResult> {
  const log = options.log ?? (() => undefined);
  const started = Date.now();
  const dataDir = mkdtempSync(join(tmpdir(), 'buildfleet-crash-'));
  const redis = await startPrivateRedis({ dataDir });
  const prefix = 'crash';
  const [apiPort, sitesPort] = (await freePorts(2)) as [number, number];
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    REDIS_URL: redis.url,
    BUILDFLEET_PREFIX: prefix,
    BUILDFLEET_API_PORT: String(apiPort),
    BUILDFLEET_PUBLIC_URL: `http://127.0.0.1:${apiPort}`,
    BUILDFLEET_SITES_PORT: String(sitesPort),
    BUILDFLEET_SITES_PUBLIC_URL: `http://127.0.0.1:${sitesPort}`,
    // Deployments go to the site store: beside Redis's data, removed with it.
    BUILDFLEET_SITES_DIR: join(dataDir, 'sites'),
    BUILDFLEET_AUTH: 'disabled',
    // The experiment is one tenant submitting every run at once: per-tenant limits off.
    BUILDFLEET_MAX_CONCURRENT_RUNS: '0',
    BUILDFLEET_RATE_LIMIT_PER_MINUTE: '0',
    // Short locks so a killed worker's job is taken over in seconds, not half a minute.
    BUILDFLEET_LOCK_DURATION_MS: '3000',
    BUILDFLEET_STALLED_INTERVAL_MS: '1000',
    // A flow lost with Redis's last second is found in seconds too (src/workers/run-reaper.ts).
    BUILDFLEET_REAPER_INTERVAL_MS: '2000',
    BUILDFLEET_REAPER_GRACE_MS: '10000',
    BUILDFLEET_RETRY_BASE_MS: '200',
    LOG_LEVEL: 'info',
    ANTHROPIC_API_KEY: '',
  };
  const roles: SpawnedRole[] = [];
  const workers = new Map<string, SpawnedRole>();
  const connection = new Redis(redis.url, { maxRetriesPerRequest: null });
  connection.on('error', () => undefined);
  const store = new RunEngine(connection, createKeySpace(prefix));
  try {
    // The simulator answers after 150–500 ms, so kills land inside model calls too.
    const simulator = spawnRole({ name: 'simulator', args: ['sim', '--port', '0', '--latency-ms', '150-500'], env });
    roles.push(simulator);
    env.ANTHROPIC_BASE_URL = (await simulator.waitForLine(/simulator listening on (http:\/\/\S+)/))[1];
    const api = spawnRole({ name: 'api', args: ['api'], env });
    roles.push(api);
    await api.waitForLine(/api listening on/);
    const startWorker = async (slot: string) => {
      const role = spawnRole({ name: slot, args: ['worker', slot.startsWith('model') ? 'model' : 'tool'], env });
      workers.set(slot, role);
      await role.waitForLine(/worker started/, 60_000);
    };
    await Promise.all(['model-1', 'model-2', 'tool-1', 'tool-2'].map(startWorker));

    const client = new ApiClient(`http://127.0.0.1:${apiPort}`);
    const runIds: string[] = [];
    for (let index = 0; index < options.runs; index += 1) {
      const created = await client.request<{ id: string }>('POST', '/v1/runs', { prompt: `Build site ${index} for a bakery.` });
      runIds.push(created.id);
    }
    log(`submitted ${runIds.length} runs`);

    let workerKills = 0;
    let redisRestarts = 0;
    let chaos = true;
    const chaosLoop = (async () => {
      let rounds = 0;
      while (chaos) {
        await new Promise((resolve) => setTimeout(resolve, randomBetween(options.killIntervalMs.min, options.killIntervalMs.max)));
        if (!chaos) break;
        rounds += 1;
        if (rounds === 2 && redisRestarts === 0) {
          log('restarting redis-server (SIGKILL, then AOF reload)');
          await redis.restart();
          redisRestarts += 1;
          continue;
        }
        const slots = [...workers.keys()];
        const slot = slots[Math.floor(Math.random() * slots.length)]!;
        log(`SIGKILL ${slot}`);
        await workers.get(slot)!.stop('SIGKILL');
        workerKills += 1;
        await startWorker(slot);
      }
    })();

    const deadline = Date.now() + options.timeoutMs;
    const terminal = new Set(['succeeded', 'failed', 'refused', 'cancelled']);
    const finals = new Map<string, { status: string; error: { code: string } | null }>();
    while (finals.size < runIds.length && Date.now() < deadline) {
      for (const id of runIds) {
        if (finals.has(id)) continue;
        const run = await store.getRun(id).catch(() => null);
        if (run && terminal.has(run.status)) finals.set(id, { status: run.status, error: run.error });
      }
      // Chaos stops once most runs are done, so the last ones finish in calm.
      if (finals.size >= runIds.length * 0.9) chaos = false;
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    chaos = false;
    await chaosLoop;

    let longestRecoveryMs = 0;
    let reaperResumes = 0;
    const effects: EffectAudit = { writeCalls: 0, writeEffects: 0, deployCalls: 0, deployments: 0, publishCalls: 0, publishEffects: 0, duplicates: [] };
    for (const id of runIds) {
      const events = await store.readEvents(id, '-', 10_000);
      reaperResumes += events.filter((event) => event.event === 'run-resume').length;
      for (let index = 1; index < events.length; index += 1) {
        const gap = Date.parse(events[index]!.at) - Date.parse(events[index - 1]!.at);
        if (events[index - 1]!.event !== 'input-wait') longestRecoveryMs = Math.max(longestRecoveryMs, gap);
      }
      const audit = await auditRunEffects(store, id);
      effects.writeCalls += audit.writeCalls;
      effects.writeEffects += audit.writeEffects;
      effects.deployCalls += audit.deployCalls;
      effects.deployments += audit.deployments;
      effects.publishCalls += audit.publishCalls;
      effects.publishEffects += audit.publishEffects;
      effects.duplicates.push(...audit.duplicates.map((duplicate) => `${id}: ${duplicate}`));
    }
    const failed = [...finals.entries()]
      .filter(([, view]) => view.status !== 'succeeded')
      .map(([id, view]) => ({ id, status: view.status, error: view.error?.code ?? null }));
    const finished = [...finals.values()].filter((view) => view.status === 'succeeded').length;
    return {
      runs: runIds.length,
      finished,
      lost: runIds.length - finished,
      failed,
      duplicatedEffects: effects.duplicates.length,
      effects,
      workerKills,
      redisRestarts,
      longestRecoveryMs,
      reaperResumes,
      durationMs: Date.now() - started,
    };
  } finally {
    await Promise.allSettled([...roles, ...workers.values()].map((role) => role.stop('SIGTERM', 10_000)));
    connection.disconnect();
    await redis.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

export function formatCrashResult(result: CrashExperimentResult): string {
  const lines = [
    `runs submitted           ${result.runs}`,
    `runs finished            ${result.finished}`,
    `runs lost                ${result.lost}${result.failed.length > 0 ? `  (${result.failed.map((run) => `${run.id}:${run.status}${run.error ? `/${run.error}` : ''}`).join(', ')})` : ''}`,
    `worker processes killed  ${result.workerKills} (SIGKILL, restarted)`,
    `redis restarts           ${result.redisRestarts} (SIGKILL, AOF appendfsync everysec)`,
    `write_file calls/writes  ${result.effects.writeCalls} / ${result.effects.writeEffects}`,
    `deploy calls/deployments ${result.effects.deployCalls} / ${result.effects.deployments}`,
    `publish calls/publishes  ${result.effects.publishCalls} / ${result.effects.publishEffects}`,
    `duplicated effects       ${result.duplicatedEffects}${result.effects.duplicates.length > 0 ? `  (${result.effects.duplicates.slice(0, 5).join('; ')})` : ''}`,
    `longest recovery         ${(result.longestRecoveryMs / 1000).toFixed(1)} s (longest pause between two events of a run)`,
    `resumed by the reaper    ${result.reaperResumes} (turns whose jobs were lost)`,
    `wall time                ${(result.durationMs / 1000).toFixed(1)} s`,
  ];
  return lines.join('\n');
}

export async function runCrashExperimentCommand(argv: string[]): Promise<number> {
  const { values } = parseArgs({ args: argv, options: { runs: { type: 'string', default: '40' }, 'timeout-s': { type: 'string', default: '240' } } });
  const result = await runCrashExperiment({
    runs: Number(values.runs),
    killIntervalMs: { min: 400, max: 1500 },
    timeoutMs: Number(values['timeout-s']) * 1000,
    log: (line) => console.error(`[crash] ${line}`),
  });
  console.log(formatCrashResult(result));
  return result.lost === 0 && result.duplicatedEffects === 0 ? 0 : 1;
}
