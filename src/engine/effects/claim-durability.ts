// WAIT-based durability for the once-only effect claims (issue #20, docs/scaling.md#failover).
// Redis replicates asynchronously: a claim the primary acknowledged can die with it when a replica
// is promoted before the claim reached it. For the claims that stand for an effect outside Redis
// (deploy's record, publish's step before the SiteStore pointer moves) the claim is confirmed on
// `replicas` replicas with WAIT before the effect runs or the call is acknowledged; if WAIT does
// not confirm in time the claim counts as not durable and the attempt fails as transient (the
// queue retries it, and the retry finds the claim or makes it again, both once-only).
//
// Which node hears the WAIT: WAIT blocks until the replicas acknowledged the replication offset of
// the connection it is sent on (on Redis 7.0.15 a connection that has only read waits for the
// offset the server had reached, measured with a stopped replica: no false confirmation either
// way). On one server that is the engine's one connection. An ioredis Cluster keeps one connection per node, and a
// keyless command sent on its own goes to a random node, so the WAIT rides in a pipeline with a
// command on the claim's key: ioredis 5.11 routes a pipeline by the slot of its keyed commands
// (Pipeline.exec: keyless commands add no slot), which puts the WAIT on the connection to the
// key's primary — the one the claim script just ran on. The claim itself is sent on its own first
// (not in the pipeline) so it keeps the Cluster client's redirection and NOSCRIPT handling.
//
// The one window left: were the primary to fail over between the claim and the WAIT, the WAIT
// would go to the promoted replica on a fresh connection (no writes of its own, so nothing to
// wait for). The keyed command is therefore the claim's own read-back: a claim the failover lost
// reads as missing, and counts as not durable like a WAIT that timed out.
import type { RedisClient } from '../../redis/redis-connection.js';

export interface ClaimDurability {
  /** Replicas that must acknowledge the claim; 0 turns the check off. */
  replicas: number;
  timeoutMs: number;
}

/** The claim of an effect could not be confirmed on enough replicas: infrastructure, retried. */
export class ClaimNotDurableError extends Error {
  readonly code = 'redis_claim_not_durable';
  constructor(message: string) {
    super(message);
    this.name = 'ClaimNotDurableError';
  }
}

export function claimDurabilityOf(config: { BUILDFLEET_REDIS_WAIT_REPLICAS: number; BUILDFLEET_REDIS_WAIT_TIMEOUT_MS: number }): ClaimDurability {
  return { replicas: config.BUILDFLEET_REDIS_WAIT_REPLICAS, timeoutMs: config.BUILDFLEET_REDIS_WAIT_TIMEOUT_MS };
}

/** How a claim is read back: a member of a zset (a recorded deployment), or a list at least this
 * long (the write journal holding a publish's entry, whose position the publish step returned). */
export type ClaimReadBack =
  { command: 'zscore'; key: string; member: string } | { command: 'llen'; key: string; atLeast: number } | { command: 'hexists'; key: string; field: string };

/** Confirms a claim just written on this connection: `readBack` is a command on the claim's key
 * (routing it, and proving the claim is still there); throws ClaimNotDurableError unless the claim
 * reads back and WAIT counts `replicas` acknowledgements within the timeout. */
export async function confirmClaimDurable({
  redis,
  durability,
  what,
  readBack,
}: {
  redis: RedisClient;
  durability: ClaimDurability | undefined;
  what: string;
  readBack: ClaimReadBack;
}): Promise<void> {
  if (!durability || durability.replicas <= 0) return;
  const pipeline = redis.pipeline();
  if (readBack.command === 'zscore') pipeline.zscore(readBack.key, readBack.member);
  else if (readBack.command === 'hexists') pipeline.hexists(readBack.key, readBack.field);
  else pipeline.llen(readBack.key);
  const replies = await pipeline.wait(durability.replicas, durability.timeoutMs).exec();
  const [claimReply, waitReply] = replies ?? [];
  const claimError = claimReply?.[0];
  const waitError = waitReply?.[0];
  if (claimError || waitError) {
    throw new ClaimNotDurableError(`${what}: could not confirm the claim (${String(claimError ?? waitError)})`);
  }
  const present =
    readBack.command === 'zscore'
      ? claimReply?.[1] !== null && claimReply?.[1] !== undefined
      : readBack.command === 'hexists'
        ? Number(claimReply?.[1]) === 1
        : Number(claimReply?.[1]) >= readBack.atLeast;
  if (!present) {
    throw new ClaimNotDurableError(`${what}: the claim is gone (lost in a failover); the call is retried`);
  }
  const acknowledged = Number(waitReply?.[1]);
  if (acknowledged < durability.replicas) {
    throw new ClaimNotDurableError(
      `${what}: ${acknowledged} of ${durability.replicas} replicas acknowledged the claim within ${durability.timeoutMs} ms; not run until it is durable`,
    );
  }
}
