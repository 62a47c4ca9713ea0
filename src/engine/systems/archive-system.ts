// The archive system: what the engine hands to history (src/history/) — everything it holds of a
// run, validated, for its archive in PostgreSQL and for the API's payload reads — and the expiry of
// a run's keys once its history is committed.
import { execPipeline } from '../../redis/redis-pipelines.js';
import { isTerminal } from '../../domain/run-outcomes.js';
import { StoredRunInvalid } from '../run-record.js';
import type { RunRecord } from '../run-types.js';
import type { RunArchiveSource, StoredEvent, StoredToolResult } from '../engine-types.js';
import { parseOutcome, parseToolResult, runKeysOf } from './stored-values.js';
import { type EngineContext, EngineSystem } from './engine-system.js';
import type { EventSystem } from './event-system.js';
import type { IndexSystem } from './index-system.js';
import type { LifecycleSystem } from './lifecycle-system.js';
import type { TurnSystem } from './turn-system.js';
import type { ToolCallSystem } from './tool-call-system.js';
import type { EffectSystem } from './effect-system.js';

export class ArchiveSystem extends EngineSystem {
  constructor(
    context: EngineContext,
    private readonly events: EventSystem,
    private readonly lifecycle: LifecycleSystem,
    private readonly indexes: IndexSystem,
    private readonly turns: TurnSystem,
    private readonly toolCalls: ToolCallSystem,
    private readonly effects: EffectSystem,
  ) {
    super(context);
  }

  /**
   * Everything the engine holds of a run that ended, for its archive in PostgreSQL: the record,
   * each turn's committed answer and outcome, the tool ledger, the trail, the whole event stream
   * and the transcript — validated like every read. Null when the run is missing; 'live' when it
   * has not ended (its state still changes, so it is not archived yet).
   */
  async readRunForArchive(runId: string): Promise<RunArchiveSource | null | 'live'> {
    const run = await this.lifecycle.getRun(runId);
    if (!run) return null;
    if (!isTerminal(run.status)) return 'live';
    return this.readRunSource(run);
  }

  /**
   * What readRunForArchive reads, for a run in any state: the API's payload reads (turns, tool
   * calls, transcript: src/api/run-payloads.ts) shape a live run exactly as its archive will be
   * shaped, so a run answers the same before and after it moves to history. Null when the run is
   * missing. Not a snapshot: a live run may commit between the reads, which each answer alone
   * tolerates (a turn's tool calls may show before their results).
   */
  async readRunPayloadSource(runId: string): Promise<RunArchiveSource | null> {
    const run = await this.lifecycle.getRun(runId);
    return run ? this.readRunSource(run) : null;
  }

  private async readRunSource(run: RunRecord): Promise<RunArchiveSource> {
    const runId = run.id;
    const keys = this.keys;
    const pipeline = this.redis.pipeline();
    // Turns 0..run.turn: a run that ended at turn N committed (or failed) at most N + 1 turns.
    for (let turn = 0; turn <= run.turn; turn += 1) pipeline.hmget(keys.turn(runId, turn), 'response', 'outcome');
    pipeline.hgetall(keys.results(runId));
    const replies = await execPipeline(pipeline, run.turn + 2);
    const turns: RunArchiveSource['turns'] = [];
    for (let turn = 0; turn <= run.turn; turn += 1) {
      const [response, outcome] = replies[turn] as [string | null, string | null];
      if (response === null && outcome === null) continue;
      turns.push({ turn, response: response === null ? null : (JSON.parse(response) as unknown), outcome: outcome === null ? null : parseOutcome(outcome) });
    }
    const results = new Map<string, StoredToolResult>();
    for (const [toolUseId, raw] of Object.entries(replies[run.turn + 1] as Record<string, string>)) results.set(toolUseId, parseToolResult(raw));
    const events: StoredEvent[] = [];
    for (let after = '-'; ;) {
      const page = await this.events.readEvents(runId, after, 1000);
      events.push(...page);
      if (page.length < 1000) break;
      after = page.at(-1)!.id;
    }
    return {
      run,
      turns,
      results,
      trail: await this.toolCalls.getTrail(runId),
      events,
      messages: await this.turns.getMessages(runId),
      files: await this.effects.listFiles(runId),
    };
  }

  /**
   * Once the run's history is archived: marks the record `archivedAt` and sets every key of the
   * run to expire after `retentionMs`, in one script (bfExpireArchivedRun), then takes the run off
   * its tenant's run index (the listing finds it in history from now on: src/api/list-runs.ts) and
   * off the archive's work list. 'missing' / 'live' when the run is gone or has not ended: nothing
   * expires.
   *
   * The run's keys are named, not searched for: a SCAN MATCH walks the whole keyspace, so every
   * archive would cost time in proportion to everything Redis holds. runKeysOf lists every kind
   * of key a run has; test/integration/history-archiving.test.ts fails if one is left without a TTL.
   */
  async expireArchivedRun(runId: string, retentionMs: number, archivedAt = new Date()): Promise<'expiring' | 'missing' | 'live'> {
    if (!Number.isSafeInteger(retentionMs) || retentionMs < 1) throw new Error(`retentionMs must be a positive whole number of ms, not ${retentionMs}`);
    const [turnField, tenant] = await this.redis.hmget(this.keys.run(runId), 'turn', 'tenant');
    const turns = Number(turnField ?? '0');
    if (!Number.isSafeInteger(turns) || turns < 0) throw new StoredRunInvalid(runId, 'turn', `not a whole number: ${JSON.stringify(turnField)}`);
    const keys = runKeysOf(this.keys, runId, { turns });
    const [reply] = await this.scripts.bfExpireArchivedRun(keys.length, ...keys, retentionMs, archivedAt.toISOString());
    if (reply === -2) return 'live';
    // Out of the tenant's index and the archive's work list only now, once the history is
    // committed and the keys expire (both indexes are another slot than the run's keys): a crash
    // before this leaves entries whose next archive job finds the run archived, or gone, and
    // comes back here. A listing meanwhile finds the run in both places and shows it once.
    if (tenant) await this.indexes.leaveTenantIndex(tenant, runId);
    await this.indexes.forgetUnarchivedRun(runId);
    return reply === 1 ? 'expiring' : 'missing';
  }
}
