// The tool-call system: the ledger of tool results (`keys.results`, one per tool_use id, written
// once) and the trail the finish gate reads (`keys.trail`), with the write journal's read, and the
// cache of tools' last known good outputs (last-known-good.ts).
import { redactValue } from '../../telemetry/redact-secrets.js';
import { writesKey } from '../effect-keys.js';
import { fromFields, pairsToFields } from '../run-record.js';
import type { RunRecord } from '../run-types.js';
import { type ClaimDurability, confirmClaimDurable } from '../effects/claim-durability.js';
import type { RunEvent, StoredToolResult, TrailEntry } from '../engine-types.js';
import { decodeLiveUpstreams, parseToolResult, parseTrailEntry } from './stored-values.js';
import { runUpstreamsKey } from '../kill-switch-keys.js';
import { type EngineContext, EngineSystem } from './engine-system.js';
import type { EventSystem } from './event-system.js';
import { LAST_KNOWN_GOOD_TTL_MS, lastKnownGoodKey, type LastKnownGoodReuse } from './last-known-good.js';

export class ToolCallSystem extends EngineSystem {
  constructor(
    context: EngineContext,
    private readonly events: EventSystem,
  ) {
    super(context);
  }

  /** A tool job's start: its recorded result if it has one, else the run and the upstreams its
   * writes depend on now (UpstreamSystem.liveUpstreamsOf, read in the same step for the kill
   * switch's claim) — one round trip. */
  async loadToolCall(runId: string, toolUseId: string): Promise<{ recorded: StoredToolResult } | { run: RunRecord; liveUpstreams: string[] } | 'missing'> {
    const [recorded, runPairs, upstreams] = await this.scripts.bfLoadToolCall(
      this.keys.results(runId),
      this.keys.run(runId),
      runUpstreamsKey(this.keys, runId),
      toolUseId,
    );
    if (recorded) return { recorded: parseToolResult(recorded) };
    const fields = pairsToFields(runPairs);
    if (!fields.id) return 'missing';
    return { run: fromFields(fields), liveUpstreams: decodeLiveUpstreams({ runId, reply: upstreams, logger: this.logger }) };
  }

  async getStoredToolResult(runId: string, toolUseId: string): Promise<StoredToolResult | null> {
    const raw = await this.redis.hget(this.keys.results(runId), toolUseId);
    return raw === null ? null : parseToolResult(raw);
  }

  /** Stores a tool's result, its trail entry and its events together, once; returns what is
   * stored (an earlier result, and no new events, if this call was answered before). */
  async recordToolResult(runId: string, result: StoredToolResult, trail: TrailEntry, events: RunEvent[] = []): Promise<StoredToolResult> {
    const encoded = events.map((event) => this.events.encode(event));
    const safe = redactValue(result);
    const json = JSON.stringify(safe);
    const stored = await this.scripts.bfRecordToolResult(
      this.keys.results(runId),
      this.keys.trail(runId),
      this.keys.events(runId),
      trail.toolUseId,
      json,
      JSON.stringify(trail),
      encoded.length,
      ...encoded.map((event) => event.json),
    );
    if (stored !== json) return parseToolResult(stored);
    // Stored now: what was stored is `safe`, so it is not parsed back from its JSON (up to 32 KB of
    // envelope and the output beside it, per call).
    this.events.emitted(encoded);
    return safe;
  }

  /**
   * Confirms the ledger entry of a tool call on `durability.replicas` replicas (Redis WAIT on the
   * run's primary; claim-durability.ts), or throws ClaimNotDurableError. For the calls of write
   * tools: their job must not complete while its result could still be lost in a failover, since
   * the queue (another slot, another primary) would then say done while the run's ledger, after
   * the failover, says nothing — and the model, told the result is missing, would call the tool
   * again under a new id, a second effect. Failed here, the job is retried under the same id, and
   * its effect's claims make the retry find what the first attempt did.
   */
  async confirmToolResultDurable(runId: string, toolUseId: string, durability: ClaimDurability | undefined): Promise<void> {
    await confirmClaimDurable({
      redis: this.redis,
      durability,
      what: `the result of tool call ${toolUseId}`,
      readBack: { command: 'hexists', key: this.keys.results(runId), field: toolUseId },
    });
  }

  async getTrail(runId: string): Promise<TrailEntry[]> {
    const raw = await this.redis.lrange(this.keys.trail(runId), 0, -1);
    return raw.map(parseTrailEntry);
  }

  /** The run's write journal (effect-scripts.ts), for audits. */
  async getWriteJournal(runId: string): Promise<unknown[]> {
    return (await this.redis.lrange(writesKey(this.keys, runId), 0, -1)).map((raw) => JSON.parse(raw) as unknown);
  }

  /** Caches a tool's validated output (redacted) as its last known good, for an hour. */
  async saveLastKnownGood({
    tool,
    input,
    runId,
    scope,
    output,
  }: {
    tool: string;
    input: unknown;
    runId: string;
    scope: LastKnownGoodReuse;
    output: unknown;
  }): Promise<void> {
    await this.redis.set(lastKnownGoodKey({ keys: this.keys, tool, input, runId, scope }), JSON.stringify(redactValue(output)), 'PX', LAST_KNOWN_GOOD_TTL_MS);
  }

  /** The tool's last known good output for this input (and run, when per_run), or null. */
  async loadLastKnownGood({ tool, input, runId, scope }: { tool: string; input: unknown; runId: string; scope: LastKnownGoodReuse }): Promise<unknown | null> {
    const raw = await this.redis.get(lastKnownGoodKey({ keys: this.keys, tool, input, runId, scope }));
    return raw === null ? null : (JSON.parse(raw) as unknown);
  }
}
