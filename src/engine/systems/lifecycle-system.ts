// The lifecycle system: a run's record (`keys.run`) from its creation to its end and its reopening
// — create, read (validated), update while active, end once (with its event, log line and
// observers, in `ended`), the reaper's conditional end, and a client's resume of a failed run.
import { readEach } from '../../redis/redis-pipelines.js';
import { RUN_STATUSES, type RunErrorCode, type RunStatus, type TerminalStatus } from '../../domain/run-outcomes.js';
import { redactText } from '../../telemetry/redact-secrets.js';
import { fromFields, StoredRunInvalid, toFields } from '../run-record.js';
import { decodeRunStatus, decodeRunSummary, RUN_SUMMARY_FIELDS, type RunReading, type RunSummaryRecord } from '../run-summary.js';
import { defineReopenRunScript } from '../reopen-run-script.js';
import { countersSchema, type RunRecord, type TodoState } from '../run-types.js';
import { IMPLICIT_PROVIDER } from '../../domain/provider-declarations.js';
import { SITE_BUILDER_AGENT } from '../../domain/profile.js';
import { isQueueShard } from '../../domain/queue-shards.js';
import { EMPTY_USAGE } from '../../domain/usage.js';
import { microUsdToUsd } from '../../domain/usage-cost.js';
import { type CreateRunInput, newRunId, type RunEnd, type RunEvent, type RunEventDraft, type RunProgress } from '../engine-types.js';
import { agentOf, runKeysOf } from './stored-values.js';
import { type EngineContext, EngineSystem } from './engine-system.js';
import type { EventSystem } from './event-system.js';
import type { IndexSystem } from './index-system.js';
import type { AdmissionSystem } from './admission-system.js';

export class LifecycleSystem extends EngineSystem {
  constructor(
    context: EngineContext,
    private readonly events: EventSystem,
    private readonly indexes: IndexSystem,
    private readonly admission: AdmissionSystem,
  ) {
    super(context);
  }

  /** Creates the run record, its tenant index entry and its run-create event in one step. */
  async createRun(input: CreateRunInput): Promise<RunRecord> {
    const id = input.runId ?? newRunId();
    const now = new Date().toISOString();
    const record: RunRecord = {
      id,
      tenant: input.tenant,
      status: 'queued',
      agent: input.agent ?? SITE_BUILDER_AGENT,
      phase: input.initialPhase ?? 'planning',
      turn: 0,
      prompt: input.prompt,
      model: input.model,
      provider: input.provider ?? IMPLICIT_PROVIDER,
      queueShard: input.queueShard ?? 0,
      maxTurns: input.maxTurns,
      maxTokens: input.maxTokens,
      maxTokensCeiling: Math.max(input.maxTokensCeiling ?? input.maxTokens, input.maxTokens),
      thinking: input.thinking?.thinking ?? 'off',
      thinkingBudgetTokens: input.thinking?.thinkingBudgetTokens ?? null,
      effort: input.thinking?.effort ?? null,
      thinkingDisplay: input.thinking?.thinkingDisplay ?? null,
      options: input.options,
      createdAt: now,
      updatedAt: now,
      traceId: input.traceId ?? null,
      traceContext: input.traceContext ?? {},
      todos: [],
      usage: { ...EMPTY_USAGE },
      costMicroUsd: 0,
      budget: input.budget ?? { costMicroUsd: null, tokens: null, costSetBy: 'run' },
      result: null,
      error: null,
      latestDeploy: null,
      liveDeploy: null,
      question: null,
      finishVerified: false,
      safeMode: null,
      pendingPhase: null,
      counters: countersSchema.parse({}),
      meta: null,
      rerunOf: input.rerunOf ?? null,
      input: input.input ?? null,
      webhook: input.webhook ?? null,
    };
    // In the live-run index before the record exists: a crash in between leaves an entry the
    // reaper drops (no record), never a run the reaper cannot find.
    await this.indexes.enterLiveRun(id);
    // Scored by the record's own createdAt, so the listing's position of a run (creation ms, id)
    // is the same whether it is read from this index or from history (src/api/run-reader.ts).
    // Before the record, for the same reason as the live-run index (the tenant's index is in
    // another Cluster slot than the run's keys): a listing skips an entry whose record is missing.
    await this.indexes.enterTenantIndex(input.tenant, id, Date.parse(now));
    const event = this.events.encode({
      run_id: id,
      step: 0,
      event: 'run-create',
      model: record.model,
      max_tokens: record.maxTokens,
      thinking: record.thinking,
      thinking_budget_tokens: record.thinkingBudgetTokens,
      effort: record.effort,
      thinking_display: record.thinkingDisplay,
      budget_usd: record.budget.costMicroUsd === null ? null : microUsdToUsd(record.budget.costMicroUsd),
      token_budget: record.budget.tokens,
      ...(record.traceId ? { trace_id: record.traceId } : {}),
    });
    const deprecation = input.deprecation
      ? this.events.encode({
          run_id: id,
          step: 0,
          event: 'model-deprecation-warn',
          level: 'warn',
          model: record.model,
          retires_on: input.deprecation.retiresOn,
          successor: input.deprecation.successor,
          message: input.deprecation.message,
        })
      : null;
    const created = this.redis.multi().hset(this.keys.run(id), toFields(record)).xadd(this.keys.events(id), 'MAXLEN', '~', '10000', '*', 'data', event.json);
    if (deprecation) created.xadd(this.keys.events(id), 'MAXLEN', '~', '10000', '*', 'data', deprecation.json);
    await created.exec();
    this.events.emitted(deprecation ? [event, deprecation] : [event]);
    return record;
  }

  /** The run, validated (StoredRunInvalid when its hash does not decode), or null. */
  async getRun(runId: string): Promise<RunRecord | null> {
    const fields = await this.redis.hgetall(this.keys.run(runId));
    if (!fields.id) return null;
    return fromFields(fields);
  }

  /** A run's status alone (one field), validated, or null when it has no record: what a model call
   * polls while its answer streams, to stop paying for a run that ended (call-model-for-turn.ts). */
  async statusOf(runId: string): Promise<RunStatus | null> {
    const status = await this.redis.hget(this.keys.run(runId), 'status');
    if (status === null) return null;
    if (!(RUN_STATUSES as readonly string[]).includes(status)) throw new StoredRunInvalid(runId, 'status', `not a run status: ${JSON.stringify(status)}`);
    return status as RunStatus;
  }

  /** The queue shard of a run (src/domain/queue-shards.ts), or null when it has no record: one
   * field, for what acts on a run it knows only by id (its end, the archive sweep). */
  async queueShardOf(runId: string): Promise<number | null> {
    const [id, shard] = await this.redis.hmget(this.keys.run(runId), 'id', 'queueShard');
    if (!id) return null;
    if (shard === null || shard === '') return 0;
    const value = Number(shard);
    if (!isQueueShard(value)) throw new StoredRunInvalid(runId, 'queueShard', `not a shard: ${JSON.stringify(shard)}`);
    return value;
  }

  /** The status of each run, in order, in one round trip: missing when the run has no status (its
   * record expired or never existed), invalid when the stored status is not a run status. A Redis
   * error on any of them throws (the store failed; nothing is known about the run). */
  async runStatuses(runIds: readonly string[]): Promise<Array<RunReading<RunStatus>>> {
    if (runIds.length === 0) return [];
    const replies = await readEach(this.redis, runIds, (pipeline, runId) => pipeline.hget(this.keys.run(runId), 'status'));
    // HGET answers a string or nil; the pipeline only loses the type.
    return runIds.map((runId, index) => decodeRunStatus(runId, replies[index] as string | null));
  }

  /** What a listing shows of each run (run-summary.ts), in order, in one round trip: missing when
   * the run has no record, invalid when its fields do not decode. A Redis error throws. */
  async runSummaries(runIds: readonly string[]): Promise<Array<RunReading<RunSummaryRecord>>> {
    if (runIds.length === 0) return [];
    const replies = await readEach(this.redis, runIds, (pipeline, runId) => pipeline.hmget(this.keys.run(runId), ...RUN_SUMMARY_FIELDS));
    // HMGET answers one string or nil per field; the pipeline only loses the type.
    return runIds.map((runId, index) => decodeRunSummary(runId, replies[index] as Array<string | null>));
  }

  /** Status, turn and last transition of each run, in order, in one round trip. */
  async runProgress(runIds: readonly string[]): Promise<Array<RunReading<RunProgress>>> {
    if (runIds.length === 0) return [];
    const replies = await readEach(this.redis, runIds, (pipeline, runId) => pipeline.hmget(this.keys.run(runId), 'status', 'turn', 'updatedAt', 'queueShard'));
    return runIds.map((runId, index) => {
      const [status = null, turn = null, updatedAt = null, queueShard = null] = replies[index] as Array<string | null>;
      const reading = decodeRunStatus(runId, status);
      if (reading.state !== 'found') return reading;
      const decodedTurn = turn === null || turn === '' ? 0 : Number(turn);
      if (!Number.isInteger(decodedTurn) || decodedTurn < 0)
        return { state: 'invalid', error: new StoredRunInvalid(runId, 'turn', `not a non-negative integer: ${JSON.stringify(turn)}`) };
      const decodedShard = queueShard === null || queueShard === '' ? 0 : Number(queueShard);
      if (!isQueueShard(decodedShard))
        return { state: 'invalid', error: new StoredRunInvalid(runId, 'queueShard', `not a shard: ${JSON.stringify(queueShard)}`) };
      return { state: 'found', value: { status: reading.value, turn: decodedTurn, updatedAt: updatedAt ?? '', queueShard: decodedShard } };
    });
  }

  /** Updates fields of a run that is not terminal, with the events that announce the change;
   * returns false when the run already ended (nothing written). */
  async updateRun(runId: string, update: Partial<RunRecord>, events: RunEvent[] = []): Promise<boolean> {
    const encoded = events.map((event) => this.events.encode(event));
    const fields = toFields({ ...update, updatedAt: new Date().toISOString() });
    const written = await this.scripts.bfUpdateIfActive(
      this.keys.run(runId),
      this.keys.events(runId),
      JSON.stringify(fields),
      encoded.length,
      ...encoded.map((event) => event.json),
    );
    if (written !== 1) return false;
    this.events.emitted(encoded);
    return true;
  }

  async setTodos(runId: string, todos: TodoState[]): Promise<void> {
    await this.redis.hset(this.keys.run(runId), 'todos', JSON.stringify(todos));
  }

  /**
   * Ends a run once: its terminal state, `before` events (e.g. the stop that caused it) and its
   * run-end event in one step, then its slot under the tenant's concurrent-run cap, the log line
   * and the run-end observers. Later calls are no-ops returning false.
   */
  async endRun(
    runId: string,
    turn: number,
    status: TerminalStatus,
    outcome: { result?: string | null; error?: { code: RunErrorCode; message: string } | null },
    before: RunEventDraft[] = [],
  ): Promise<boolean> {
    const error = outcome.error ? { code: outcome.error.code, message: redactText(outcome.error.message) } : null;
    const fields = toFields({ status, result: outcome.result ?? null, error, question: null, updatedAt: new Date().toISOString() });
    const events = [...before.map((draft): RunEvent => ({ run_id: runId, step: turn, ...draft })), this.events.runEndEvent(runId, turn, status, error)].map(
      (event) => this.events.encode(event),
    );
    const reply = await this.scripts.bfEndRun(
      this.keys.run(runId),
      this.keys.events(runId),
      JSON.stringify(fields),
      events.length,
      ...events.map((event) => event.json),
    );
    if (reply === null) return false;
    this.events.emitted(events);
    await this.ended({ runId, tenant: reply[0], agent: agentOf(reply[2]), turn, status, errorCode: error?.code ?? null, webhookOwed: reply[1] === 1 });
    return true;
  }

  /** endRun, only if the run is still at the turn and last transition the reaper saw
   * (bfEndRunIfUnchanged): the same one end, event, log line and metric. */
  async endRunIfUnchanged(
    runId: string,
    seen: { turn: number; updatedAt: string },
    error: { code: RunErrorCode; message: string },
    before: RunEventDraft[] = [],
  ): Promise<'ended' | 'changed' | 'terminal'> {
    const redacted = { code: error.code, message: redactText(error.message) };
    const fields = toFields({ status: 'failed', result: null, error: redacted, question: null, updatedAt: new Date().toISOString() });
    const events = [
      ...before.map((draft): RunEvent => ({ run_id: runId, step: seen.turn, ...draft })),
      this.events.runEndEvent(runId, seen.turn, 'failed', redacted),
    ].map((event) => this.events.encode(event));
    const reply = await this.scripts.bfEndRunIfUnchanged(
      this.keys.run(runId),
      this.keys.events(runId),
      String(seen.turn),
      seen.updatedAt,
      JSON.stringify(fields),
      events.length,
      ...events.map((event) => event.json),
    );
    if (reply[0] === 0) return 'changed';
    if (reply[0] !== 1) return 'terminal';
    this.events.emitted(events);
    await this.ended({
      runId,
      tenant: reply[1] ?? '',
      agent: agentOf(reply[3]),
      turn: seen.turn,
      status: 'failed',
      errorCode: redacted.code,
      webhookOwed: reply[2] === 1,
    });
    return 'ended';
  }

  /** After a run ended (in this process, by whichever transition): its slot, log line, observers. */
  async ended(end: RunEnd): Promise<void> {
    this.transcripts.forget(end.runId);
    // The end happened (the script said so): it is logged and counted before anything else can fail.
    this.logger?.info({ run_id: end.runId, step: end.turn, event: 'run-end', status: end.status, error_code: end.errorCode }, 'run ended');
    for (const observer of this.events.endObservers) observer(end);
    // From the live-run index to the unarchived one (and the owed-webhook one), then the tenant's
    // slot: each in another Cluster slot than the run's keys, each failure logged and repaired by a
    // sweeper (IndexSystem.handOverEnded, AdmissionSystem.releaseEndedRun).
    await this.indexes.handOverEnded(end);
    if (end.tenant) await this.admission.releaseEndedRun({ tenant: end.tenant, runId: end.runId });
  }

  /**
   * Takes a run that failed with one of `resumableCodes` back to `running` at the turn that failed
   * (bfReopenRun, one step with its `run-reopen` event), for `jobIdFor(turn, reopen)` to carry that
   * turn; the caller enqueues that job after, and only after 'reopened'. The turns committed before
   * stay committed (never called again), the ledger keeps every tool result (a tool called again
   * answers from it). Then — other slots than the run's keys — the run goes back to the live-run
   * index (the reaper watches it again), off the unarchived one, and back to its tenant's run index
   * (an archive took it off). Its next end is an end like any other: one run-end event, one log
   * line, the runs-ended observers once more, the archive again.
   */
  async reopenFailedRun(
    runId: string,
    reopen: { resumableCodes: readonly string[]; jobIdFor: (turn: number, reopen: number) => string },
  ): Promise<
    | { kind: 'reopened'; run: RunRecord; jobId: string }
    | { kind: 'missing' }
    | { kind: 'not_failed'; status: RunStatus }
    | { kind: 'not_resumable'; code: string }
    | { kind: 'changed' }
  > {
    const run = await this.getRun(runId);
    if (!run) return { kind: 'missing' };
    if (run.status !== 'failed') return { kind: 'not_failed', status: run.status };
    const code = run.error?.code ?? '';
    if (!reopen.resumableCodes.includes(code)) return { kind: 'not_resumable', code };
    const turn = run.turn;
    const reopensRaw = await this.redis.hget(this.keys.turn(runId, turn), 'reopens');
    const reopens = Number(reopensRaw ?? '0');
    if (!Number.isSafeInteger(reopens) || reopens < 0) throw new Error(`The turn ${turn} of run ${runId} holds reopens that are not a count: ${reopensRaw}`);
    const jobId = reopen.jobIdFor(turn, reopens + 1);
    const event = this.events.encode({ run_id: runId, step: turn, event: 'run-reopen', job_id: jobId, error_code: code, reopen: reopens + 1 });
    // The failed turn's hash second (KEYS[2]); runKeysOf names it again among the rest, harmlessly.
    const keys = [this.keys.run(runId), this.keys.turn(runId, turn), this.keys.events(runId), ...runKeysOf(this.keys, runId, { turns: turn }).slice(1)];
    const reply = await defineReopenRunScript(this.redis).bfReopenRun(
      keys.length,
      ...keys,
      String(turn),
      String(reopens),
      jobId,
      new Date().toISOString(),
      event.json,
      ...reopen.resumableCodes,
    );
    switch (reply[0]) {
      case -1:
        return { kind: 'missing' };
      case 0: {
        const reading = decodeRunStatus(runId, reply[1]);
        if (reading.state !== 'found') throw new StoredRunInvalid(runId, 'status', `not a run status: ${JSON.stringify(reply[1])}`);
        return { kind: 'not_failed', status: reading.value };
      }
      case -3:
        return { kind: 'not_resumable', code: reply[1] };
      case -4:
        return { kind: 'changed' };
      case 1:
        break;
      default:
        throw new Error(`bfReopenRun answered ${JSON.stringify(reply)}`);
    }
    this.events.emitted([event]);
    this.logger?.info({ run_id: runId, step: turn, event: 'run-reopen', job_id: jobId, error_code: code }, 'run reopened');
    // First into the live index, then out of the unarchived one (as an end does the reverse), so
    // the run is always on one work list.
    await this.indexes.enterLiveRun(runId);
    await this.indexes.forgetUnarchivedRun(runId);
    await this.indexes.enterTenantIndex(run.tenant, runId, Date.parse(run.createdAt));
    return { kind: 'reopened', run, jobId };
  }
}
