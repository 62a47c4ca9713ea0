// Queue shards (docs/scaling.md#queue-shards): N independent sets of the fleet's queues, each under
// a hash tag of its own, so on a Redis Cluster each shard's queue traffic lands on one slot and the
// shards spread over the primaries. A run is assigned a shard when it is created and keeps it for
// life (the run record's `queueShard`): every later job of the run goes to the same shard, so a
// flow never spans two shards.

export const MAX_QUEUE_SHARDS = 64;

/** Whether a stored value can name a shard: a whole number below MAX_QUEUE_SHARDS. */
export function isQueueShard(value: number): boolean {
  return Number.isInteger(value) && value >= 0 && value < MAX_QUEUE_SHARDS;
}

/** The BullMQ prefix of a shard. Shard 0 keeps the fleet's `{prefix}`, so a fleet of one shard —
 * and every run created before shards existed — is where it always was; shard N is `{prefix.N}`
 * (a dot, which BUILDFLEET_PREFIX cannot hold, so no prefix names another's shard). */
export function queuePrefixOf(prefix: string, shard: number): string {
  return shard === 0 ? `{${prefix}}` : `{${prefix}.${shard}}`;
}

/** Every key of a prefix, as SCAN patterns: its run and fleet keys (`prefix:…`), shard 0's queues
 * (`{prefix}:…`) and every other shard's (`{prefix.N}:…`). What removes a prefix removes these. */
export function keyPatternsOfPrefix(prefix: string): string[] {
  return [`${prefix}:*`, `{${prefix}}:*`, `{${prefix}.*}:*`];
}

/** The shard of a new run: its id hashed (FNV-1a, 32 bits) onto `shards`. Ids are random, so runs
 * spread evenly; the result is stored on the run, so changing the shard count later moves no run. */
export function assignQueueShard(runId: string, shards: number): number {
  if (!Number.isInteger(shards) || shards < 1 || shards > MAX_QUEUE_SHARDS) throw new Error(`shards must be 1–${MAX_QUEUE_SHARDS}, not ${shards}`);
  let hash = 0x811c9dc5;
  for (let index = 0; index < runId.length; index += 1) {
    hash ^= runId.charCodeAt(index);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash % shards;
}
