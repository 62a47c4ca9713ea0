// `buildfleet experiment crash`: builds run while model and tool worker processes are SIGKILLed
// at random moments (and restarted), and Redis is killed and restarted once from its AOF
// (appendfsync everysec). Then every run's workspace is audited for duplicated effects.
//
// `--cluster` (issue #20): the fleet runs on a local Redis Cluster of 3 primaries and 3 replicas
// instead, and the Redis restart is replaced by failovers during the builds: a primary is
// SIGKILLed (its replica is promoted by the cluster) and restarted (it rejoins as a replica), and
// another primary is failed over by hand (CLUSTER FAILOVER). Besides lost runs and duplicated
// effects it reports the writes the primaries acknowledged and the failovers lost
// (acknowledged-write-audit.ts). The once-only effect claims wait for a replica
// (BUILDFLEET_REDIS_WAIT_REPLICAS=1, src/engine/effects/claim-durability.ts). `--shards N` spreads
// the runs over N queue shards with one model and one tool worker process per shard.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { createKeySpace, RunEngine, auditRunEffects, type EffectAudit } from '../engine/index.js';
import { freePorts, startPrivateRedis, type PrivateRedis } from '../dev/private-redis.js';
import { startLocalRedisCluster, type LocalRedisCluster } from '../dev/local-redis-cluster.js';
import { parseClusterSeeds } from '../domain/redis-target.js';
import { connectRedis } from '../redis/redis-connection.js';
import { observeAcknowledgedWrites, type AcknowledgedWriteAudit } from './acknowledged-write-audit.js';
import { ApiClient } from './api-client.js';
import { spawnRole, type SpawnedRole } from './spawn-role.js';
import { CRASH_AGENTS, setUpCrashAgent, type AgentEffectAudit, type CrashAgent } from './experiment-crash-agent.js';
import { isTerminal } from '../domain/run-outcomes.js';

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
  /** Cluster mode: each failover, which primary, the replica promoted, and how long until the
   * cluster served every slot again (a killed node's restart and rejoin come after, not counted). */
  failovers: CrashFailover[];
  /** Cluster mode: events the primaries acknowledged during the builds and lost in a failover. */
  acknowledgedWrites: AcknowledgedWriteAudit | null;
  /** Cluster mode: the claim durability the fleet ran with (BUILDFLEET_REDIS_WAIT_REPLICAS). */
  waitReplicas: number;
  /** With --agent: the agent's remote writes, audited at the service that made them. */
  agentEffects: AgentEffectAudit | null;
  durationMs: number;
}

export interface CrashFailover {
  kind: 'kill' | 'manual';
  primaryPort: number;
  promotedPort: number;
  tookMs: number;
  /** kill: how long the killed node took to restart and rejoin as a replica. */
  rejoinMs?: number;
  /** Runs not yet ended when the failover began: a failover with none proves nothing. */
  runsInFlight: number;
}

export interface CrashExperimentOptions {
  runs: number;
  killIntervalMs: { min: number; max: number };
  timeoutMs: number;
  /** A local Redis Cluster with primary failovers instead of one server with a restart. */
  cluster?: boolean;
  /** Cluster mode: queue shards, one model and one tool worker process each (default: no shards,
   * two of each). */
  shards?: number;
  /** Cluster mode: BUILDFLEET_REDIS_WAIT_REPLICAS for the fleet (default 1). */
  waitReplicas?: number;
  /** Runs of this example agent instead of site builds (experiment-crash-agent.ts). */
  agent?: CrashAgent;
  log?: (line: string) => void;
}

const randomBetween = (min: number, max: number) => min + Math.random() * (max - min);

export async function runCrashExperiment(options: CrashExperimentOptions): Promise<CrashExperimentResult> {
  const log = options.log ?? (() => undefined);
  const started = Date.now();
  const dataDir = mkdtempSync(join(tmpdir(), 'buildfleet-crash-'));
  const clusterMode = options.cluster === true;
  const waitReplicas = clusterMode ? (options.waitReplicas ?? 1) : 0;
  let redis: PrivateRedis | null = null;
  let cluster: LocalRedisCluster | null = null;
  if (clusterMode) cluster = await startLocalRedisCluster({ dataDir: join(dataDir, 'cluster') });
  else redis = await startPrivateRedis({ dataDir });
  const prefix = 'crash';
  const [apiPort, sitesPort] = (await freePorts(2)) as [number, number];
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    REDIS_URL: redis?.url ?? cluster!.nodeUrls[0]!,
    ...(cluster
      ? {
          BUILDFLEET_REDIS_CLUSTER_NODES: cluster.seeds,
          BUILDFLEET_REDIS_WAIT_REPLICAS: String(waitReplicas),
          BUILDFLEET_REDIS_WAIT_TIMEOUT_MS: '1000',
          ...(options.shards ? { BUILDFLEET_QUEUE_SHARDS: String(options.shards) } : {}),
        }
      : { BUILDFLEET_REDIS_CLUSTER_NODES: '' }),
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
  const connection = cluster ? connectRedis(parseClusterSeeds(cluster.seeds), 'worker') : connectRedis(redis!.url, 'worker');
  connection.on('error', () => undefined);
  const store = new RunEngine(connection, createKeySpace(prefix));
  const agent = options.agent ? await setUpCrashAgent(options.agent) : null;
  if (agent) Object.assign(env, agent.env);
  try {
    // The simulator answers after 150–500 ms, so kills land inside model calls too.
    const simulator = spawnRole({ name: 'simulator', args: ['sim', '--port', '0', '--latency-ms', '150-500', ...(agent?.simulatorArgs ?? [])], env });
    roles.push(simulator);
    env.ANTHROPIC_BASE_URL = (await simulator.waitForLine(/simulator listening on (http:\/\/\S+)/))[1];
    const api = spawnRole({ name: 'api', args: ['api'], env });
    roles.push(api);
    await api.waitForLine(/api listening on/);
    // With shards, slot `model-s1` is shard 1's model worker (BUILDFLEET_QUEUE_SHARD=1).
    const shardOf = (slot: string) => /-s(\d+)$/.exec(slot)?.[1];
    const startWorker = async (slot: string) => {
      const shard = shardOf(slot);
      const role = spawnRole({
        name: slot,
        args: ['worker', slot.startsWith('model') ? 'model' : 'tool'],
        env: shard === undefined ? env : { ...env, BUILDFLEET_QUEUE_SHARD: shard },
      });
      workers.set(slot, role);
      await role.waitForLine(/worker started/, 60_000);
    };
    const slots = options.shards
      ? Array.from({ length: options.shards }, (_, shard) => [`model-s${shard}`, `tool-s${shard}`]).flat()
      : ['model-1', 'model-2', 'tool-1', 'tool-2'];
    await Promise.all(slots.map(startWorker));

    const client = new ApiClient(`http://127.0.0.1:${apiPort}`);
    const runIds: string[] = [];
    for (let index = 0; index < options.runs; index += 1) {
      const created = await client.request<{ id: string }>('POST', '/v1/runs', agent ? agent.runBody(index) : { prompt: `Build site ${index} for a bakery.` });
      runIds.push(created.id);
    }
    log(`submitted ${runIds.length} runs`);
    const acknowledged = cluster ? observeAcknowledgedWrites({ store, runIds }) : null;

    let workerKills = 0;
    let redisRestarts = 0;
    const failovers: CrashFailover[] = [];
    // Cluster mode: the first round kills a primary (then restarts it), the third fails another
    // over by hand; both while builds run (the loop below waits for them before calming down).
    const failoverStep = async (kind: CrashFailover['kind']) => {
      const runsInFlight = runIds.length - finals.size;
      const topology = await cluster!.topology();
      const used = new Set(failovers.map((failover) => failover.promotedPort));
      const primaries = topology.filter((node) => node.role === 'primary' && node.slots > 0 && !used.has(node.port));
      const primary = primaries[Math.floor(Math.random() * primaries.length)]!;
      if (kind === 'kill') {
        log(`SIGKILL primary ${primary.port}`);
        const { promotedPort, tookMs } = await cluster!.killPrimary(primary.port);
        log(`replica ${promotedPort} promoted; the cluster served again after ${tookMs} ms; restarting ${primary.port}`);
        const rejoinStarted = Date.now();
        await cluster!.restartNode(primary.port);
        failovers.push({ kind, primaryPort: primary.port, promotedPort, tookMs, rejoinMs: Date.now() - rejoinStarted, runsInFlight });
      } else {
        log(`CLUSTER FAILOVER of primary ${primary.port}`);
        const { promotedPort, tookMs } = await cluster!.failover(primary.port);
        failovers.push({ kind, primaryPort: primary.port, promotedPort, tookMs, runsInFlight });
      }
    };
    let chaos = true;
    const chaosLoop = (async () => {
      let rounds = 0;
      while (chaos) {
        await new Promise((resolve) => setTimeout(resolve, randomBetween(options.killIntervalMs.min, options.killIntervalMs.max)));
        if (!chaos) break;
        rounds += 1;
        if (cluster && (rounds === 1 || rounds === 3)) {
          await failoverStep(rounds === 1 ? 'kill' : 'manual');
          continue;
        }
        if (redis && rounds === 2 && redisRestarts === 0) {
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
    const finals = new Map<string, { status: string; error: { code: string } | null }>();
    // In cluster mode the loop also waits for both failovers (one that finds every run ended is
    // reported as such, and fails the experiment: it proved nothing).
    while ((finals.size < runIds.length || (cluster && failovers.length < 2)) && Date.now() < deadline) {
      await acknowledged?.poll();
      for (const id of runIds) {
        if (finals.has(id)) continue;
        const run = await store.getRun(id).catch(() => null);
        if (run && isTerminal(run.status)) finals.set(id, { status: run.status, error: run.error });
      }
      // Chaos stops once most runs are done, so the last ones finish in calm.
      // In cluster mode not before both failovers have happened: they are the experiment.
      if (finals.size >= runIds.length * 0.9 && (!cluster || failovers.length >= 2)) chaos = false;
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    chaos = false;
    await chaosLoop;
    if (cluster) {
      // A run seen terminal whose end a failover lost is open again until the reaper ends it: wait
      // for every run to be terminal now (the table counts such ends among the lost writes).
      for (;;) {
        const views = await Promise.all(runIds.map(async (id) => [id, await store.getRun(id).catch(() => null)] as const));
        const open = views.filter(([, run]) => !run || !isTerminal(run.status));
        for (const [id, run] of views) if (run && isTerminal(run.status)) finals.set(id, { status: run.status, error: run.error });
        for (const [id] of open) finals.delete(id);
        if (open.length === 0 || Date.now() >= deadline) break;
        await new Promise((resolve) => setTimeout(resolve, 500));
      }
    }
    const acknowledgedWrites = acknowledged ? await acknowledged.audit() : null;

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
    const agentEffects = agent ? await agent.audit(store, runIds) : null;
    const failed = [...finals.entries()]
      .filter(([, view]) => view.status !== 'succeeded')
      .map(([id, view]) => ({ id, status: view.status, error: view.error?.code ?? null }));
    const finished = [...finals.values()].filter((view) => view.status === 'succeeded').length;
    return {
      runs: runIds.length,
      finished,
      lost: runIds.length - finished,
      failed,
      duplicatedEffects: effects.duplicates.length + (agentEffects?.duplicates.length ?? 0),
      effects,
      agentEffects,
      workerKills,
      redisRestarts,
      longestRecoveryMs,
      reaperResumes,
      failovers,
      acknowledgedWrites,
      waitReplicas,
      durationMs: Date.now() - started,
    };
  } finally {
    await Promise.allSettled([...roles, ...workers.values()].map((role) => role.stop('SIGTERM', 10_000)));
    connection.disconnect();
    await agent?.close();
    await redis?.stop();
    await cluster?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

export function formatCrashResult(result: CrashExperimentResult): string {
  const failedRuns = result.failed.map((run) => `${run.id}:${run.status}${run.error ? `/${run.error}` : ''}`).join(', ');
  const duplicates = [...result.effects.duplicates, ...(result.agentEffects?.duplicates ?? [])].slice(0, 5).join('; ');
  const lines = [
    `runs submitted           ${result.runs}`,
    `runs finished            ${result.finished}`,
    `runs lost                ${result.lost}${result.failed.length > 0 ? `  (${failedRuns})` : ''}`,
    `worker processes killed  ${result.workerKills} (SIGKILL, restarted)`,
    ...(result.acknowledgedWrites === null
      ? [`redis restarts           ${result.redisRestarts} (SIGKILL, AOF appendfsync everysec)`]
      : [
          ...result.failovers.map(
            (failover) =>
              `failover                 ${failover.kind === 'kill' ? 'SIGKILL' : 'CLUSTER FAILOVER'} ` +
              `primary ${failover.primaryPort} -> replica ${failover.promotedPort} promoted, cluster ` +
              `ok after ${(failover.tookMs / 1000).toFixed(1)} s, ${failover.runsInFlight} runs in flight` +
              (failover.rejoinMs !== undefined ? `; restarted, rejoined as replica in ${(failover.rejoinMs / 1000).toFixed(1)} s` : ''),
          ),
          `claim durability         WAIT ${result.waitReplicas} replica(s) (BUILDFLEET_REDIS_WAIT_REPLICAS)`,
          `acknowledged, then lost  ${result.acknowledgedWrites.lost} of ${result.acknowledgedWrites.observed} events read during the builds` +
            (result.acknowledgedWrites.lost > 0
              ? `  (${Object.entries(result.acknowledgedWrites.lostByEvent)
                  .map(([name, count]) => `${name} ${count}`)
                  .join(', ')})`
              : ''),
          `lost ledger entries      ${result.acknowledgedWrites.repaired} repaired (written again), ${result.acknowledgedWrites.unrepaired.length} not` +
            (result.acknowledgedWrites.unrepaired.length > 0 ? `  (${result.acknowledgedWrites.unrepaired.slice(0, 5).join('; ')})` : ''),
        ]),
    `write_file calls/writes  ${result.effects.writeCalls} / ${result.effects.writeEffects}`,
    `deploy calls/deployments ${result.effects.deployCalls} / ${result.effects.deployments}`,
    `publish calls/publishes  ${result.effects.publishCalls} / ${result.effects.publishEffects}`,
    ...(result.agentEffects
      ? [
          `place_order calls/orders ${result.agentEffects.placeOrderCalls} / ${result.agentEffects.orders}` +
            `  (${result.agentEffects.serviceRequests} requests at the order service, repeats of a key included)`,
        ]
      : []),
    `duplicated effects       ${result.duplicatedEffects}${result.effects.duplicates.length > 0 ? `  (${duplicates})` : ''}`,
    `longest recovery         ${(result.longestRecoveryMs / 1000).toFixed(1)} s (longest pause between two events of a run)`,
    `resumed by the reaper    ${result.reaperResumes} (turns whose jobs were lost)`,
    `wall time                ${(result.durationMs / 1000).toFixed(1)} s`,
  ];
  return lines.join('\n');
}

export async function runCrashExperimentCommand(argv: string[]): Promise<number> {
  const { values } = parseArgs({
    args: argv,
    options: {
      runs: { type: 'string', default: '40' },
      'timeout-s': { type: 'string', default: '240' },
      cluster: { type: 'boolean', default: false },
      shards: { type: 'string' },
      agent: { type: 'string' },
    },
  });
  if (values.agent !== undefined && !(CRASH_AGENTS as readonly string[]).includes(values.agent)) {
    console.error(`--agent takes one of: ${CRASH_AGENTS.join(', ')}`);
    return 2;
  }
  const shards = values.shards === undefined ? undefined : Number(values.shards);
  if (shards !== undefined && (!values.cluster || !Number.isInteger(shards) || shards < 1)) {
    console.error('--shards N needs --cluster and a whole number of at least 1');
    return 2;
  }
  const result = await runCrashExperiment({
    runs: Number(values.runs),
    cluster: values.cluster,
    ...(shards !== undefined ? { shards } : {}),
    ...(values.agent !== undefined ? { agent: values.agent as CrashAgent } : {}),
    killIntervalMs: { min: 400, max: 1500 },
    timeoutMs: Number(values['timeout-s']) * 1000,
    log: (line) => console.error(`[crash] ${line}`),
  });
  console.log(formatCrashResult(result));
  const silentLosses = result.acknowledgedWrites?.unrepaired.length ?? 0;
  const idleFailovers = result.failovers.filter((failover) => failover.runsInFlight === 0).length;
  if (idleFailovers > 0) console.error(`[crash] ${idleFailovers} failover(s) began after every run had ended: run more builds (--runs)`);
  // Cluster mode is about its two failovers: one that did not happen (the deadline came first)
  // leaves the experiment unproven.
  const missingFailovers = values.cluster && result.failovers.length < 2;
  if (missingFailovers) console.error(`[crash] ${result.failovers.length} of 2 failovers happened before the deadline: raise --timeout-s`);
  return result.lost === 0 && result.duplicatedEffects === 0 && silentLosses === 0 && idleFailovers === 0 && !missingFailovers ? 0 : 1;
}
