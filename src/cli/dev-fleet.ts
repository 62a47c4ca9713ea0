// `buildfleet dev`: the whole fleet on this machine in one command — a private redis-server
// (when REDIS_URL is unset), a private PostgreSQL for run history (when DATABASE_URL is unset;
// migrated either way), the simulator (when no API key is set), the API and one model and one tool
// worker, each its own process — and a state file the other commands read.
//
// With a home (`dev`: .buildfleet/) the fleet outlives its process: Redis's AOF, the PostgreSQL
// cluster, the site store and the ports it listened on are kept there, so after a restart the same
// runs are in Redis and in history, and the links handed out before answer again. Without one (the
// demo, the tests, the experiments and the bench) all of it lives in temporary directories removed
// on stop, so they never touch — nor read — what a `dev` keeps.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { redisTargetOf } from '../domain/redis-target.js';
import { connectRedis, type RedisClient } from '../redis/redis-connection.js';
import { ApiKeyStore } from '../auth/api-key-store.js';
import { loadConfig } from '../config.js';
import { createKeySpace } from '../engine/index.js';
import { freePorts, startPrivateRedis, type PrivateRedis } from '../dev/private-redis.js';
import { claimKeptPorts, readKeptPorts } from '../dev/kept-ports.js';
import { lockDevHome } from '../dev/dev-home-lock.js';
import { stopLeftOverRedis } from '../dev/stop-left-over-redis.js';
import { startPrivatePostgres, type PrivatePostgres } from '../dev/private-postgres.js';
import { startLocalRedisCluster, type LocalRedisCluster } from '../dev/local-redis-cluster.js';
import { migrateHistory } from '../history/migrate-history.js';
import { spawnRole, type SpawnedRole } from './spawn-role.js';
import { DEV_STATE_FILE } from './dev-state.js';
import { listenerBaseUrl } from '../domain/listener-base-url.js';

export { DEV_STATE_DIR, DEV_STATE_FILE } from './dev-state.js';

export interface DevFleet {
  apiUrl: string;
  /** The sites origin (its own port): where published sites and deployments are served. */
  sitesUrl: string;
  /** The run console (its own port): sign in with an API key, e.g. the dev key of the state file. */
  consoleUrl: string;
  redisUrl: string;
  /** The Redis Cluster's seeds (BUILDFLEET_REDIS_CLUSTER_NODES) when the roles run on one, else null. */
  redisClusterSeeds: string | null;
  /** Run history (DATABASE_URL as given, else the private PostgreSQL started for this fleet). */
  databaseUrl: string;
  simulatorUrl: string | null;
  /** An API key of tenant `dev` with every scope, revoked again by stop(). */
  apiKey: string;
  /** The state file holding the URLs and the dev key (mode 600); null when none was written. */
  stateFile: string | null;
  roles: SpawnedRole[];
  /** What the person starting the fleet should know, e.g. a kept port that was taken. */
  notices: string[];
  stop(): Promise<void>;
}

export interface DevFleetOptions {
  env?: NodeJS.ProcessEnv;
  modelWorkers?: number;
  toolWorkers?: number;
  echo?: NodeJS.WritableStream | null;
  /** Where the fleet keeps its data across starts: Redis's AOF (redis/), the PostgreSQL cluster
   * (postgres/), the site store (sites/, unless BUILDFLEET_SITES_DIR is set) and the ports of its
   * listeners (ports.json). `dev` passes .buildfleet/; unset, all of it is temporary. */
  homeDir?: string;
  /** Where the private Redis keeps its AOF instead (default: redis/ of the home, else temporary). */
  dataDir?: string;
  writeStateFile?: boolean;
  /** Where the state file goes; default .buildfleet/dev.json (tests use a file of their own). */
  stateFile?: string;
  /** Extra `buildfleet sim` arguments for the embedded simulator (e.g. `--profile realistic`). */
  simulatorArgs?: string[];
  /** Start a local Redis Cluster (3 primaries, 3 replicas, src/dev/local-redis-cluster.ts) instead
   * of one private server, unless BUILDFLEET_REDIS_CLUSTER_NODES names one; the roles run on it. */
  redisCluster?: boolean;
  /** Queue shards (docs/scaling.md#queue-shards): BUILDFLEET_QUEUE_SHARDS for every role, and
   * modelWorkers model and toolWorkers tool worker processes for each shard. Default 1. */
  shards?: number;
  /** Run the roles from a compiled build (`npm run build`'s dist/src/cli.js) instead of through
   * tsx, as the image does: what the benchmark measures CPU on. */
  cliEntry?: string;
}

export async function startDevFleet(options: DevFleetOptions = {}): Promise<DevFleet> {
  // Several processes on one machine: each serves /healthz, /readyz and /metrics on a free port.
  const baseEnv: NodeJS.ProcessEnv = { ...process.env, ...options.env, BUILDFLEET_METRICS_PORT: '0' };
  const roles: SpawnedRole[] = [];
  const stateFile = options.stateFile ?? DEV_STATE_FILE;
  let redis: PrivateRedis | null = null;
  let cluster: LocalRedisCluster | null = null;
  let clusterDir: string | null = null;
  let postgres: PrivatePostgres | null = null;
  const homeDir = options.homeDir ?? null;
  // A fleet without a home keeps its data in a directory of this start, removed on stop.
  const sessionDir = homeDir ? null : mkdtempSync(join(tmpdir(), 'buildfleet-dev-'));
  const dataHome = homeDir ?? (sessionDir as string);
  const notices: string[] = [];
  const claimPorts = async (names: string[]): Promise<Record<string, number>> => {
    if (!homeDir) {
      const ports = await freePorts(names.length);
      return Object.fromEntries(names.map((name, index) => [name, ports[index]!]));
    }
    const { ports, moved } = await claimKeptPorts({ file: join(homeDir, 'ports.json'), names });
    for (const port of moved) {
      const links = port.name === 'sites' ? ': links to the sites of earlier runs name the old port' : '';
      notices.push(`the ${port.name} port kept from the last start (${port.was}) was taken; listening on ${port.now} instead${links}`);
    }
    return ports;
  };
  let devKey: { store: ApiKeyStore; connection: RedisClient; id: string } | null = null;
  const stop = async () => {
    await Promise.all([...roles].reverse().map((role) => role.stop('SIGTERM', 20_000)));
    if (devKey) {
      await devKey.store.revoke(devKey.id).catch(() => undefined);
      devKey.connection.disconnect();
    }
    await Promise.all([redis?.stop(), postgres?.stop(), cluster?.stop()]);
    if (clusterDir) rmSync(clusterDir, { recursive: true, force: true });
    if (sessionDir) rmSync(sessionDir, { recursive: true, force: true });
    if (options.writeStateFile !== false) rmSync(stateFile, { force: true });
    releaseHome?.();
  };
  // Before anything is started, and outside the try: a busy home is another dev's, whose state
  // file stop() would remove.
  const releaseHome = homeDir ? lockDevHome({ homeDir }) : null;
  try {
    // Both servers at once: initdb takes a few seconds, as long as the rest of the start together.
    const wantsCluster = options.redisCluster === true && !baseEnv.BUILDFLEET_REDIS_CLUSTER_NODES;
    const wantsRedis = !baseEnv.REDIS_URL && !wantsCluster && !baseEnv.BUILDFLEET_REDIS_CLUSTER_NODES;
    if (homeDir) {
      // Ours (lockDevHome), so a server still serving the home's AOF on the kept port was left by a killed dev.
      const keptRedisPort = readKeptPorts(join(homeDir, 'ports.json')).redis;
      if (wantsRedis && keptRedisPort !== undefined) {
        const redisDir = options.dataDir ?? join(homeDir, 'redis');
        if (await stopLeftOverRedis({ port: keptRedisPort, dataDir: redisDir })) notices.push(`stopped the redis-server a killed dev left on ${redisDir}`);
      }
    }
    const serverPorts = await claimPorts([...(wantsRedis ? ['redis'] : []), ...(baseEnv.DATABASE_URL ? [] : ['postgres'])]);
    // The site store beside them, so a home's sites stay with its history and a session's go with it.
    if (!baseEnv.BUILDFLEET_SITES_DIR) baseEnv.BUILDFLEET_SITES_DIR = join(dataHome, 'sites');
    const [startedRedis, startedPostgres, startedCluster] = await Promise.allSettled([
      wantsRedis ? startPrivateRedis({ dataDir: options.dataDir ?? join(dataHome, 'redis'), port: serverPorts.redis }) : null,
      baseEnv.DATABASE_URL ? null : startPrivatePostgres({ port: serverPorts.postgres, ...(homeDir ? { keptDir: join(homeDir, 'postgres') } : {}) }),
      // A fresh cluster each time, even with a home: its data is the session's.
      wantsCluster ? startLocalRedisCluster({ dataDir: (clusterDir = mkdtempSync(join(tmpdir(), 'buildfleet-dev-cluster-'))) }) : null,
    ]);
    if (startedRedis.status === 'fulfilled') redis = startedRedis.value;
    if (startedPostgres.status === 'fulfilled') postgres = startedPostgres.value;
    if (startedCluster.status === 'fulfilled') cluster = startedCluster.value;
    for (const started of [startedRedis, startedPostgres, startedCluster]) if (started.status === 'rejected') throw started.reason;
    if (redis) baseEnv.REDIS_URL = redis.url;
    if (cluster) baseEnv.BUILDFLEET_REDIS_CLUSTER_NODES = cluster.seeds;
    const shards = options.shards ?? 1;
    if (shards > 1) baseEnv.BUILDFLEET_QUEUE_SHARDS = String(shards);
    // Like Redis, the history is embedded unless the operator names a server; its schema is
    // applied here either way (as `buildfleet migrate` does), so a dev fleet archives from its
    // first run, and a kept cluster made by an older checkout gets the migrations added since.
    if (postgres) baseEnv.DATABASE_URL = postgres.url;
    const databaseUrl = baseEnv.DATABASE_URL ?? '';
    await migrateHistory({ databaseUrl });
    let simulatorUrl: string | null = null;
    if (!baseEnv.ANTHROPIC_API_KEY && !baseEnv.ANTHROPIC_BASE_URL) {
      const simulator = spawnRole({
        name: 'simulator',
        args: ['sim', '--port', '0', ...(options.simulatorArgs ?? [])],
        env: baseEnv,
        echo: options.echo ?? null,
        cliEntry: options.cliEntry,
      });
      roles.push(simulator);
      simulatorUrl = (await simulator.waitForLine(/simulator listening on (http:\/\/\S+)/))[1] ?? null;
      baseEnv.ANTHROPIC_BASE_URL = simulatorUrl ?? undefined;
    }
    // The API, its sites origin and the console each need a port of their own: chosen together,
    // so two of them are never the same one (freePorts).
    // (claimPorts: with a home, the ones of the last start when they are free.)
    const listenerPorts = await claimPorts((['api', 'sites', 'console'] as const).filter((name) => !baseEnv[`BUILDFLEET_${name.toUpperCase()}_PORT`]));
    if (!baseEnv.BUILDFLEET_API_PORT) baseEnv.BUILDFLEET_API_PORT = String(listenerPorts.api);
    const apiUrl = `http://${baseEnv.BUILDFLEET_API_HOST ?? '127.0.0.1'}:${baseEnv.BUILDFLEET_API_PORT}`;
    if (!baseEnv.BUILDFLEET_PUBLIC_URL) baseEnv.BUILDFLEET_PUBLIC_URL = apiUrl;
    // Sites get their own origin: another port of the API process (src/api/api-process.ts).
    if (!baseEnv.BUILDFLEET_SITES_PORT) baseEnv.BUILDFLEET_SITES_PORT = String(listenerPorts.sites);
    // A dev fleet is this machine: a wildcard sites host is reached on loopback (listenerBaseUrl).
    const sitesUrl = listenerBaseUrl({
      publicUrl: baseEnv.BUILDFLEET_SITES_PUBLIC_URL || undefined,
      host: baseEnv.BUILDFLEET_SITES_HOST ?? '127.0.0.1',
      port: Number(baseEnv.BUILDFLEET_SITES_PORT),
    });
    baseEnv.BUILDFLEET_SITES_PUBLIC_URL = sitesUrl;
    // And the run console a third one (docs/console.md), so `npm run demo` and `dev` can be watched.
    if (!baseEnv.BUILDFLEET_CONSOLE_PORT) baseEnv.BUILDFLEET_CONSOLE_PORT = String(listenerPorts.console);
    const consoleUrl = listenerBaseUrl({
      publicUrl: baseEnv.BUILDFLEET_CONSOLE_PUBLIC_URL || undefined,
      host: baseEnv.BUILDFLEET_CONSOLE_HOST ?? '127.0.0.1',
      port: Number(baseEnv.BUILDFLEET_CONSOLE_PORT),
    });
    baseEnv.BUILDFLEET_CONSOLE_PUBLIC_URL = consoleUrl;
    const api = spawnRole({ name: 'api', args: ['api'], env: baseEnv, echo: options.echo ?? null, cliEntry: options.cliEntry });
    roles.push(api);
    const workers: SpawnedRole[] = [];
    // Each shard's own workers (BUILDFLEET_QUEUE_SHARD), as a sharded deployment runs them.
    for (let shard = 0; shard < shards; shard += 1) {
      const shardEnv = shards > 1 ? { ...baseEnv, BUILDFLEET_QUEUE_SHARD: String(shard) } : baseEnv;
      const suffix = shards > 1 ? `-shard-${shard}` : '';
      for (let index = 0; index < (options.modelWorkers ?? 1); index += 1) {
        workers.push(
          spawnRole({
            name: `model-worker-${index + 1}${suffix}`,
            args: ['worker', 'model'],
            env: shardEnv,
            echo: options.echo ?? null,
            cliEntry: options.cliEntry,
          }),
        );
      }
      for (let index = 0; index < (options.toolWorkers ?? 1); index += 1) {
        workers.push(
          spawnRole({
            name: `tool-worker-${index + 1}${suffix}`,
            args: ['worker', 'tool'],
            env: shardEnv,
            echo: options.echo ?? null,
            cliEntry: options.cliEntry,
          }),
        );
      }
    }
    roles.push(...workers);
    await api.waitForLine(/api listening on (http:\/\/\S+)/);
    await Promise.all(workers.map((worker) => worker.waitForLine(/worker started/)));
    // The dev key: what `buildfleet submit/status/…` (through dev.json) and the demo call with.
    const config = loadConfig(baseEnv);
    const connection = connectRedis(redisTargetOf(config), 'api');
    connection.on('error', () => undefined);
    const store = new ApiKeyStore({ redis: connection, keys: createKeySpace(config.BUILDFLEET_PREFIX) });
    const created = await store.create({ tenant: 'dev', scopes: ['runs:read', 'runs:write', 'admin'], name: 'buildfleet dev' });
    devKey = { store, connection, id: created.id };
    if (options.writeStateFile !== false) {
      mkdirSync(dirname(stateFile), { recursive: true });
      writeFileSync(
        stateFile,
        JSON.stringify(
          {
            apiUrl,
            sitesUrl,
            redisUrl: baseEnv.REDIS_URL,
            redisClusterSeeds: baseEnv.BUILDFLEET_REDIS_CLUSTER_NODES ?? null,
            simulatorUrl,
            devKey: created.token,
            pid: process.pid,
          },
          null,
          2,
        ),
        { mode: 0o600 },
      );
    }
    const writtenStateFile = options.writeStateFile !== false ? stateFile : null;
    return {
      apiUrl,
      sitesUrl,
      consoleUrl,
      redisUrl: baseEnv.REDIS_URL ?? '',
      redisClusterSeeds: baseEnv.BUILDFLEET_REDIS_CLUSTER_NODES ?? null,
      databaseUrl,
      simulatorUrl,
      apiKey: created.token,
      stateFile: writtenStateFile,
      roles,
      notices,
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}
