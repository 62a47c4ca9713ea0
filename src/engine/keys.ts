// Redis key names. Every key of one run carries the run id as a hash tag, so the multi-key Lua
// scripts of a run work on Redis Cluster; queue keys use the `{prefix}` tag so a flow's queues
// share a slot (BullMQ requires it for flows on Cluster).

export interface KeySpace {
  prefix: string;
  run(runId: string): string;
  messages(runId: string): string;
  events(runId: string): string;
  turn(runId: string, turn: number): string;
  /** Hash: tool_use_id → the tool_result recorded for it (the ledger), written once per id. */
  results(runId: string): string;
  files(runId: string): string;
  deployments(runId: string): string;
  trail(runId: string): string;
  idempotency(tenant: string, key: string): string;
  runsByTenant(tenant: string): string;
  killSwitch(): string;
  toolOutcomes(): string;
  apiKeys(): string;
  /** API key hash (SHA-256 hex) → key id, the lookup a bearer token takes. */
  apiKeyHashes(): string;
  /** Ids of the tenant's runs that have not ended (the concurrent-run cap counts them). */
  activeRuns(tenant: string): string;
  /** The tenant's run creations of the last minute (the rate limit's sliding window). */
  runCreations(tenant: string): string;
  /** String with a short TTL: a run admitted whose record may not exist yet (admission-system.ts keeps
   * its slot from being pruned while it is being created). */
  runAdmission(tenant: string, runId: string): string;
  rateLimit(name: string): string;
  /** Hash: the tenant's spend in one UTC period (`day:2026-11-23`, `month:2026-11`): costMicroUsd
   * and tokens by class (tenant-spend.ts). */
  tenantSpend(tenant: string, period: string): string;
  /** Set: the answers (run id and turn) already added to the tenant's spend of that UTC day, so
   * re-applying a committed answer's spend adds nothing. */
  tenantSpendApplied(tenant: string, day: string): string;
  /** String: the tenant's policy overrides as JSON (tenant-policy-store.ts). */
  tenantPolicy(tenant: string): string;
  /** Sorted set: every run that has not ended (score: creation time, ms), the reaper's work list. */
  liveRuns(): string;
  /** String: the token of the worker process whose reaper is sweeping (SET NX PX). */
  reaperLock(): string;
  /** Sorted set: every run that ended and is not archived yet (score: when it ended, ms), the
   * archive sweep's work list (docs/history.md#every-finished-run-is-archived). */
  unarchivedRuns(): string;
  /** String: the token of the worker process whose archive sweep is running (SET NX PX). */
  archiveSweepLock(): string;
  /** Sorted set: every run whose end owes a webhook delivery not yet known to be enqueued (score:
   * when it ended, ms), the webhook sweep's work list (docs/webhooks.md#guarantee). */
  owedWebhooks(): string;
  /** String: the token of the worker process whose webhook sweep is running (SET NX PX). */
  webhookSweepLock(): string;
}

export function createKeySpace(prefix: string): KeySpace {
  const runKey = (runId: string, suffix = '') => `${prefix}:run:{${runId}}${suffix}`;
  return {
    prefix,
    run: (runId) => runKey(runId),
    messages: (runId) => runKey(runId, ':messages'),
    events: (runId) => runKey(runId, ':events'),
    turn: (runId, turn) => runKey(runId, `:turn:${turn}`),
    results: (runId) => runKey(runId, ':results'),
    files: (runId) => runKey(runId, ':files'),
    deployments: (runId) => runKey(runId, ':deployments'),
    trail: (runId) => runKey(runId, ':trail'),
    idempotency: (tenant, key) => `${prefix}:idem:${tenant}:${key}`,
    runsByTenant: (tenant) => `${prefix}:tenant:${tenant}:runs`,
    // One hash tag for every fleet-wide kill switch key (this hash, the fleet window and every key
    // kill-switch-keys.ts derives from the two), so each kill switch script stays in one slot
    // (Cluster).
    killSwitch: () => `${prefix}:{${prefix}-killswitch}`,
    toolOutcomes: () => `${prefix}:{${prefix}-killswitch}:toolout`,
    // One hash tag: the bootstrap script writes the keys, their hash index and its marker in one
    // step (Cluster).
    apiKeys: () => `${prefix}:{${prefix}-apikeys}`,
    apiKeyHashes: () => `${prefix}:{${prefix}-apikeys}:byhash`,
    // The tenant as hash tag: run admission checks and updates both in one Lua step (Cluster).
    activeRuns: (tenant) => `${prefix}:tenant:{${tenant}}:active`,
    runCreations: (tenant) => `${prefix}:tenant:{${tenant}}:created`,
    runAdmission: (tenant, runId) => `${prefix}:tenant:{${tenant}}:admitting:${runId}`,
    rateLimit: (name) => `${prefix}:ratelimit:${name}`,
    // The tenant as hash tag: one script adds an answer to the day, the month and the marker set.
    tenantSpend: (tenant, period) => `${prefix}:tenant:{${tenant}}:spend:${period}`,
    tenantSpendApplied: (tenant, day) => `${prefix}:tenant:{${tenant}}:spend:applied:${day}`,
    // The tenant as hash tag: read beside its spend at admission, in the same slot.
    tenantPolicy: (tenant) => `${prefix}:tenant:{${tenant}}:policy`,
    liveRuns: () => `${prefix}:runs:live`,
    reaperLock: () => `${prefix}:reaper:lock`,
    // Fleet-wide like the live-run index: no hash tag, since it names runs of every slot.
    unarchivedRuns: () => `${prefix}:runs:unarchived`,
    archiveSweepLock: () => `${prefix}:archive:lock`,
    // Fleet-wide like the unarchived-run index: no hash tag.
    owedWebhooks: () => `${prefix}:webhooks:owed`,
    webhookSweepLock: () => `${prefix}:webhook:lock`,
  };
}
