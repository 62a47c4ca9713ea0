// Starts a real Redis Cluster (redis-server processes on free loopback ports, joined by
// `redis-cli --cluster create`) so the fleet's cluster support is tested against the real thing:
// MOVED/ASK redirections, hash-slot rules and replica promotion after a primary dies.
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { promisify } from 'node:util';
import { Redis } from 'ioredis';
import { DURABLE_SERVER_FLAGS, freePorts } from './private-redis.js';
// @ts-expect-error plain ESM helper shared with the dependency-free setup script
import { findRedisCli, findRedisServer } from '../../scripts/redis-binary.mjs';

export interface ClusterNodeView {
  port: number;
  id: string;
  role: 'primary' | 'replica';
  primaryId: string | null;
  slots: number;
}

export interface LocalRedisCluster {
  /** Seed URLs of every node, e.g. ['redis://127.0.0.1:7001', ...]. */
  nodeUrls: string[];
  /** The value for BUILDFLEET_REDIS_CLUSTER_NODES: the URLs joined by commas. */
  seeds: string;
  /** Current primaries and replicas (CLUSTER NODES on a live node); nodes flagged failed are left out. */
  topology(): Promise<ClusterNodeView[]>;
  /** SIGKILLs the primary on `port`, waits until a replica of it is promoted and the cluster is ok on every live node. */
  killPrimary(port: number): Promise<{ promotedPort: number; tookMs: number }>;
  /** Sends CLUSTER FAILOVER to a replica of the primary on `port` and waits until the roles have swapped. */
  failover(port: number): Promise<{ promotedPort: number; tookMs: number }>;
  /** Restarts a killed node on its port and data dir and waits until it has rejoined (as a replica). */
  restartNode(port: number): Promise<void>;
  /** Stops every node and removes the per-node data dirs. */
  stop(): Promise<void>;
}

const TOTAL_SLOTS = 16384;
// The machine is a loaded 2-core box: bounds are generous, nothing here is a performance check.
const WAIT_BOUND_MS = 120_000;
const POLL_INTERVAL_MS = 100;

const execFileAsync = promisify(execFile);

/** Starts `primaries` primaries with `replicasPerPrimary` replicas each and resolves once every
 * slot is served, every node agrees the cluster is ok and every replica is linked to its primary. */
export async function startLocalRedisCluster(options: {
  primaries?: number;
  replicasPerPrimary?: number;
  dataDir: string;
  nodeTimeoutMs?: number;
}): Promise<LocalRedisCluster> {
  const serverBinary = findRedisServer() as string | null;
  if (!serverBinary) throw new Error('redis-server not found: install it (apt-get install -y redis-server)');
  const cliBinary = findRedisCli() as string | null;
  if (!cliBinary) throw new Error('redis-cli not found (needed to create the cluster): install it (apt-get install -y redis-tools)');
  const primaries = options.primaries ?? 3;
  const replicasPerPrimary = options.replicasPerPrimary ?? 1;
  const nodeCount = primaries * (1 + replicasPerPrimary);
  // The cluster bus defaults to port + 10000, which overflows 65535 for most ephemeral ports, so
  // every node gets a second free port for its bus (cluster-port, Redis 7).
  const allPorts = await freePorts(nodeCount * 2);
  const ports = allPorts.slice(0, nodeCount);
  const busPorts = new Map(ports.map((port, index) => [port, allPorts[nodeCount + index]!]));
  const processes = new Map<number, ChildProcess>();

  const nodeDir = (port: number) => join(options.dataDir, String(port));
  const launch = (port: number) => {
    mkdirSync(nodeDir(port), { recursive: true });
    const child = spawn(
      serverBinary,
      [
        '--port',
        String(port),
        '--cluster-port',
        String(busPorts.get(port)),
        '--bind',
        '127.0.0.1',
        '--cluster-enabled',
        'yes',
        '--cluster-config-file',
        `nodes-${port}.conf`,
        '--cluster-node-timeout',
        String(options.nodeTimeoutMs ?? 2000),
        '--dir',
        nodeDir(port),
        ...DURABLE_SERVER_FLAGS,
        // In the node's dir so a failed start or failover can be diagnosed after the fact.
        '--logfile',
        'redis.log',
      ],
      { stdio: 'ignore' },
    );
    processes.set(port, child);
  };
  const isAlive = (port: number) => {
    const child = processes.get(port);
    return child !== undefined && child.exitCode === null && child.signalCode === null;
  };
  const livePorts = () => ports.filter(isAlive);

  const topology = async (): Promise<ClusterNodeView[]> => {
    const port = livePorts()[0];
    if (port === undefined) throw new Error('no cluster node is running');
    return parseClusterNodes(String(await nodeCommand(port, 'CLUSTER', 'NODES')));
  };

  const waitForHealthy = (what: string) =>
    pollUntil(what, async () => {
      for (const port of livePorts()) {
        const info = parseInfo(String(await nodeCommand(port, 'CLUSTER', 'INFO')));
        // known_nodes: every node must have met every other one, not just cover the slots.
        if (info.cluster_state !== 'ok' || Number(info.cluster_slots_ok) !== TOTAL_SLOTS || Number(info.cluster_known_nodes) !== nodeCount) {
          return false;
        }
        const replication = parseInfo(String(await nodeCommand(port, 'INFO', 'replication')));
        if (replication.role === 'slave' && replication.master_link_status !== 'up') return false;
      }
      return true;
    });

  const stop = async () => {
    await Promise.all(
      [...processes.values()].map(async (child) => {
        if (child.exitCode !== null || child.signalCode !== null) return;
        const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
        child.kill('SIGTERM');
        await Promise.race([exited, sleep(5000).then(() => child.kill('SIGKILL'))]);
      }),
    );
    for (const port of ports) rmSync(nodeDir(port), { recursive: true, force: true });
  };

  try {
    for (const port of ports) launch(port);
    for (const port of ports) await pollUntil(`redis-server on ${port} to answer PING`, async () => (await nodeCommand(port, 'PING')) === 'PONG');
    await execFileAsync(
      cliBinary,
      ['--cluster', 'create', ...ports.map((port) => `127.0.0.1:${port}`), '--cluster-replicas', String(replicasPerPrimary), '--cluster-yes'],
      // redis-cli waits for the nodes to agree without a bound of its own.
      { timeout: WAIT_BOUND_MS, maxBuffer: 16 * 1024 * 1024 },
    ).catch((error: { stdout?: string; stderr?: string; message: string }) => {
      throw new Error(`redis-cli --cluster create failed: ${error.message}\n${error.stdout ?? ''}${error.stderr ?? ''}`);
    });
    await waitForHealthy('the new cluster to be ok on every node');
  } catch (error) {
    await stop();
    throw error;
  }

  const replicasOf = async (port: number) => {
    const nodes = await topology();
    const primary = nodes.find((node) => node.port === port);
    if (!primary || primary.role !== 'primary') throw new Error(`node ${port} is not a live primary`);
    const replicas = nodes.filter((node) => node.primaryId === primary.id && isAlive(node.port));
    if (replicas.length === 0) throw new Error(`primary ${port} has no live replica to promote`);
    return replicas.map((node) => node.port);
  };
  const roleOf = async (port: number) => {
    const reply = await nodeCommand(port, 'ROLE');
    return Array.isArray(reply) ? String(reply[0]) : '';
  };

  const nodeUrls = ports.map((port) => `redis://127.0.0.1:${port}`);
  return {
    nodeUrls,
    seeds: nodeUrls.join(','),
    topology,
    async killPrimary(port) {
      const replicas = await replicasOf(port);
      const child = processes.get(port)!;
      const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
      const started = Date.now();
      child.kill('SIGKILL');
      await exited;
      const promotedPort = await pollUntil(`a replica of ${port} to be promoted`, async () => {
        for (const replica of replicas) if ((await roleOf(replica)) === 'master') return replica;
        return null;
      });
      await waitForHealthy(`the cluster to be ok again after ${port} was killed`);
      return { promotedPort, tookMs: Date.now() - started };
    },
    async failover(port) {
      const [replica] = await replicasOf(port);
      const started = Date.now();
      await nodeCommand(replica!, 'CLUSTER', 'FAILOVER');
      await pollUntil(`${replica} and ${port} to swap roles`, async () => (await roleOf(replica!)) === 'master' && (await roleOf(port)) === 'slave');
      await waitForHealthy(`the cluster to be ok again after the failover of ${port}`);
      const tookMs = Date.now() - started;
      // Each node learns the new roles by gossip: until every live one has, topology() (read from
      // any one of them) may still show the old ones.
      await pollUntil(`every node to see ${replica} as primary and ${port} as its replica`, async () => {
        for (const live of ports.filter(isAlive)) {
          const view = parseClusterNodes(String(await nodeCommand(live, 'CLUSTER', 'NODES')));
          if (view.find((node) => node.port === replica)?.role !== 'primary' || view.find((node) => node.port === port)?.role !== 'replica') return false;
        }
        return true;
      });
      return { promotedPort: replica!, tookMs };
    },
    async restartNode(port) {
      if (!ports.includes(port)) throw new Error(`node ${port} is not part of this cluster`);
      if (isAlive(port)) throw new Error(`node ${port} is still running`);
      launch(port);
      await pollUntil(`redis-server on ${port} to answer PING`, async () => (await nodeCommand(port, 'PING')) === 'PONG');
      await waitForHealthy(`node ${port} to rejoin the cluster`);
    },
    stop,
  };
}

/** Parses CLUSTER NODES lines: `<id> <ip:port@bus[,hostname]> <flags> <primary|-> <ping> <pong> <epoch> <link> <slot ranges...>`. */
function parseClusterNodes(text: string): ClusterNodeView[] {
  const nodes: ClusterNodeView[] = [];
  for (const line of text.split('\n')) {
    const fields = line.trim().split(' ');
    if (fields.length < 8) continue;
    const [id, address, flagText, primaryId] = fields as [string, string, string, string];
    const flags = flagText.split(',');
    // A node the cluster has declared failed (or one not fully met yet) is not part of the topology.
    if (flags.includes('fail') || flags.includes('handshake') || flags.includes('noaddr')) continue;
    const port = Number(address.split('@')[0]!.split(':').pop());
    let slots = 0;
    for (const range of fields.slice(8)) {
      // `[slot->-id]` / `[slot-<-id]` are migrations in flight, not owned slots.
      if (range.startsWith('[')) continue;
      const [first, last] = range.split('-').map(Number) as [number, number | undefined];
      slots += (last ?? first) - first + 1;
    }
    const role = flags.includes('master') ? 'primary' : 'replica';
    nodes.push({ port, id, role, primaryId: role === 'replica' && primaryId !== '-' ? primaryId : null, slots });
  }
  return nodes.sort((left, right) => left.port - right.port);
}

function parseInfo(text: string): Record<string, string> {
  const fields: Record<string, string> = {};
  for (const line of text.split('\r\n')) {
    const separator = line.indexOf(':');
    if (separator > 0 && !line.startsWith('#')) fields[line.slice(0, separator)] = line.slice(separator + 1);
  }
  return fields;
}

/** One admin command on one node over a short-lived plain connection (not a Cluster client, which
 * would follow redirections and hide which node answered). */
async function nodeCommand(port: number, command: string, ...args: string[]): Promise<unknown> {
  const client = new Redis({
    host: '127.0.0.1',
    port,
    lazyConnect: true,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
    connectTimeout: 5_000,
    commandTimeout: 10_000,
  });
  // Refused connections are expected while a node starts or after it was killed; connect() reports them.
  client.on('error', () => undefined);
  try {
    await client.connect();
    return await client.call(command, ...args);
  } finally {
    client.disconnect();
  }
}

/** Polls `probe` until it returns a truthy value; errors (a node not up yet) count as "not yet". */
async function pollUntil<T>(what: string, probe: () => Promise<T | null | false>): Promise<T> {
  const started = Date.now();
  let lastError: unknown;
  for (;;) {
    try {
      const value = await probe();
      if (value) return value;
    } catch (error) {
      lastError = error;
    }
    if (Date.now() - started > WAIT_BOUND_MS) {
      throw new Error(`timed out waiting for ${what}${lastError ? ` (last error: ${String(lastError)})` : ''}`);
    }
    await sleep(POLL_INTERVAL_MS);
  }
}
