// The run engine: the one owner of a run's state. Every key of a run (keys.ts), every script that
// changes it (run-scripts.ts, effect-scripts.ts) and every transition — create, commit a turn's
// input and claim it, commit the model's answer and its outcome, record a tool result, park for
// input and answer, end (once, with its event, log line and metric), cancel — is a method here,
// and everything read back is validated (run-record.ts, run-summary.ts, turn-outcome.ts, events).
// A transition and the events that describe it are one script, so a turn costs a handful of round
// trips; the transcript is cached per run in this process (transcript-cache.ts) and only its new
// tail is read each turn.
import { randomUUID } from 'node:crypto';
import type { RedisClient } from '../redis/redis-connection.js';
import { execPipeline, readEach } from '../redis/redis-pipelines.js';
import type { Logger } from 'pino';
import { PHASES, type Phase } from '../domain/profile.js';
import { z } from 'zod';
import { isTerminal, TERMINAL_STATUSES, type RunErrorCode, type RunStatus, type TerminalStatus } from '../domain/run-outcomes.js';
import type { KeySpace } from './keys.js';
import { redactText, redactValue } from '../telemetry/redact-secrets.js';
import { defineRunScripts, type RunScripts } from './run-scripts.js';
import { assetsKey, screenshotsKey, themeKey, writesKey } from './effect-keys.js';
import { runUpstreamsKey } from './kill-switch-keys.js';
import { fromFields, pairsToFields, StoredRunInvalid, toFields } from './run-record.js';
import { decodeRunStatus, decodeRunSummary, RUN_SUMMARY_FIELDS, type RunReading, type RunSummaryRecord } from './run-summary.js';
import { TranscriptCache } from './transcript-cache.js';
import { defineReopenRunScript } from './reopen-run-script.js';
import { turnOutcomeSchema, type PlannedDispatch, type TurnOutcome } from './turn-outcome.js';
import { countersSchema, usageSchema, type RunError, type RunOptions, type RunRecord, type RunWebhook, type TodoState, type Usage } from './run-types.js';
import { defineAppendEventIfRunExistsScript } from './append-event-if-run-exists-script.js';
import { defineOwedWebhookScripts } from './owed-webhook-scripts.js';
import { IMPLICIT_PROVIDER } from '../domain/provider-declarations.js';
import { isQueueShard } from '../domain/queue-shards.js';
import { confirmClaimDurable, type ClaimDurability } from './effects/claim-durability.js';
import { EMPTY_USAGE } from '../domain/usage.js';
import type { RunBudget } from '../domain/run-budget.js';
import type { ModelDeprecation, RunThinkingSettings } from '../domain/resolve-run-model-settings.js';
import { microUsdToUsd } from '../domain/usage-cost.js';
import { decodeTenantSpend, defineTenantSpendScripts, isPendingSpendField, pendingSpendField, pendingSpendSchema, spendIncrements, spendPeriods, TENANT_SPEND_TTL_SECONDS, type PendingSpend, type TenantSpendPeriod } from './tenant-spend.js';

export interface RunEvent {
  run_id: string;
  step: number;
  event: string;
  [field: string]: unknown;
}

export interface StoredEvent extends RunEvent {
  id: string;
  at: string;
}

export interface TrailEntry {
  tool: string;
  ok: boolean;
  phase: Phase;
  turn: number;
  toolUseId: string;
  detail?: string;
}

/** A tool_use's answer as kept in the ledger: the tool_result content sent to the model. */
export interface StoredToolResult {
  content: string;
  is_error: boolean;
  /** The tool's output before wrapping, for the API and the finish gate; absent on errors. */
  output?: unknown;
  error_code?: string;
  error_reason?: string;
}

export interface CreateRunInput {
  tenant: string;
  prompt: string;
  model: string;
  /** The run's provider (docs/providers.md). Default: `anthropic`. */
  provider?: string;
  /** The run's queue shard (src/domain/queue-shards.ts). Default: 0. */
  queueShard?: number;
  maxTurns: number;
  maxTokens: number;
  /** Default: maxTokens (never raised). */
  maxTokensCeiling?: number;
  /** How the run thinks (domain/resolve-run-model-settings.ts). Default: off, no effort. */
  thinking?: RunThinkingSettings;
  /** The run's model is deprecated (resolve-run-model-settings.ts): the run is created with a
   * `model-deprecated` warning event (its log line and the deprecated-model metric follow it). */
  deprecation?: ModelDeprecation | null;
  options: RunOptions;
  traceId?: string | null;
  traceContext?: Record<string, string>;
  runId?: string;
  /** The run's budgets (src/domain/run-budget.ts), chosen by the caller within its tenant's
   * policy. Default: none (no USD or token budget), for runs made by tests and experiments. */
  budget?: RunBudget;
  /** The run this one reruns (POST /v1/runs/:id/rerun). Default: null. */
  rerunOf?: string | null;
  /** Where the run's webhook deliveries go (docs/webhooks.md), already checked. Default: null. */
  webhook?: RunWebhook | null;
}

/** How a run ended, for observers (the runs-ended metric) — reported exactly once per run. */
export interface RunEnd {
  runId: string;
  tenant: string;
  turn: number;
  status: TerminalStatus;
  errorCode: RunErrorCode | null;
  /** The run names a webhook, so its end owes a `run.ended` delivery (recorded by the ending script:
   * readOwedWebhook). */
  webhookOwed: boolean;
}

/** An end's owed webhook delivery as the ending script recorded it on the run's hash. */
export interface OwedWebhook {
  /** The stored value, as given back to settleOwedWebhook. */
  raw: string;
  status: TerminalStatus;
  /** The end's transition time (ISO): it names the delivery. */
  endedAt: string;
}

const owedWebhookSchema = z.strictObject({ status: z.enum(TERMINAL_STATUSES), endedAt: z.string() });

/** A model turn as stored when its job starts (bfLoadTurn), decoded. */
export interface TurnView {
  run: RunRecord;
  /** The turn's own hash: committed input, owner, and (once committed) its outcome. */
  turn: { inputCommitted: boolean; claimedBy: string | null; outcome: TurnOutcome | null; overloadSince: number | null };
  previousOutcome: TurnOutcome | null;
  /** Ledger entries of the tool calls the previous outcome waits for (null: none recorded). */
  results: Map<string, StoredToolResult | null>;
  /** The transcript as committed so far (a copy: the caller may extend it). */
  messages: unknown[];
  /** Characters of the transcript's stored JSON (for the prompt-size estimate). */
  transcriptCharacters: number;
  trail: TrailEntry[];
}

/** What readRunForArchive returns: a run that ended, as the engine holds it. */
export interface RunArchiveSource {
  run: RunRecord;
  /** The turns that committed an answer or an outcome, in order. `response` is the answer's summary
   * as run-model-turn.ts stores it (id, stop_reason, usage, cost_micro_usd…), not yet validated. */
  turns: Array<{ turn: number; response: unknown; outcome: TurnOutcome | null }>;
  /** The tool ledger: tool_use id → its tool_result. */
  results: Map<string, StoredToolResult>;
  trail: TrailEntry[];
  /** The whole event stream, in order. */
  events: StoredEvent[];
  messages: unknown[];
  /** The workspace listing as GET /v1/runs/:id shows it (listFiles): path and size of each file. */
  files: Array<{ path: string; bytes: number }>;
}

/** How far a run that has not ended got, as the reaper reads it for many runs at once. */
export interface RunProgress {
  status: RunStatus;
  turn: number;
  /** The run's last transition (ISO; '' on a record that never had one). */
  updatedAt: string;
  /** The run's queue shard. */
  queueShard: number;
}

/** A run at a turn, as the reaper judges it (bfInspectTurn): what the turn and its jobs should be. */
export interface TurnInspection {
  status: RunStatus;
  turn: number;
  updatedAt: string;
  inputCommitted: boolean;
  /** The job that claimed the turn (committed its input), if one did. */
  claimedBy: string | null;
  /** How many times the reaper handed this turn to a new job. */
  recoveries: number;
  /** The calls the previous turn handed out (ask_user included), each with whether its result is
   * in the ledger: the turn's job waits for the tool jobs of those that are not. */
  calls: Array<{ call: PlannedDispatch; recorded: boolean }>;
  /** The run's root span context, for the jobs a recovery enqueues ({} when none was stored). */
  traceContext: Record<string, string>;
}

export function newRunId(): string {
  return `run_${randomUUID().replaceAll('-', '')}`;
}

/** A run parked for its open question (parkForInput), for observers (webhooks): reported once per
 * question, by the process that parked it. */
export interface RunPark {
  runId: string;
  turn: number;
  toolUseId: string;
  question: string;
}

/** Called after every event is stored: the logger and the active span take their copy here. */
export type RunEventObserver = (event: RunEvent) => void;
export type RunEndObserver = (end: RunEnd) => void;
export type RunParkObserver = (park: RunPark) => void;

export interface RunEngineOptions {
  logger?: Logger;
  /** Bytes of parsed transcripts this process keeps between turns (default 64 MiB). */
  transcriptCacheBytes?: number;
}

/** Refusals of bfAddTenantSpend (tenant-spend.ts) and Redis's WRONGTYPE: damage no retry repairs. */
const DAMAGED_TENANT_SPEND = /WRONGTYPE|bfAddTenantSpend: .* is (?:a |not )/;

export class RunEngine {
  readonly scripts: RunScripts;
  private readonly eventObservers: RunEventObserver[] = [];
  private readonly endObservers: RunEndObserver[] = [];
  private readonly parkObservers: RunParkObserver[] = [];
  private readonly transcripts: TranscriptCache;
  private readonly logger: Logger | undefined;
  private readonly tenantSpendScripts: ReturnType<typeof defineTenantSpendScripts>;

  constructor(
    readonly redis: RedisClient,
    readonly keys: KeySpace,
    options: RunEngineOptions = {},
  ) {
    this.scripts = defineRunScripts(redis);
    this.tenantSpendScripts = defineTenantSpendScripts(redis);
    this.transcripts = new TranscriptCache(options.transcriptCacheBytes ?? 64 * 1024 * 1024);
    this.logger = options.logger;
  }

  observeEvents(observer: RunEventObserver): void {
    this.eventObservers.push(observer);
  }

  /** Observers of run ends (metrics): called once per run, by the process that ended it. */
  observeRunEnds(observer: RunEndObserver): void {
    this.endObservers.push(observer);
  }

  /** Observers of runs parked for input (webhooks): called once per question, by the process that
   * parked the run, after the park is stored. */
  observeParks(observer: RunParkObserver): void {
    this.parkObservers.push(observer);
  }

  // ---- events -------------------------------------------------------------------------------

  /** Redacts and encodes an event for a script to append; `emitted` tells the observers once the
   * script has stored it. Secrets never reach the stream, even inside an error message or a URL. */
  private encode(event: RunEvent): { json: string; safe: RunEvent } {
    const safe = redactValue(event);
    return { json: JSON.stringify({ ...safe, at: new Date().toISOString() }), safe };
  }

  private emitted(events: ReadonlyArray<{ safe: RunEvent }>): void {
    for (const { safe } of events) for (const observer of this.eventObservers) observer(safe);
  }

  /** Appends a trace line to the run's event stream on its own; returns the stream id. Prefer the
   * transition methods, which append their events in the same step as the state they describe. */
  async appendEvent(event: RunEvent): Promise<string> {
    const encoded = this.encode(event);
    const id = await this.redis.xadd(this.keys.events(event.run_id), 'MAXLEN', '~', '10000', '*', 'data', encoded.json);
    this.emitted([encoded]);
    return id ?? '';
  }

  /**
   * Appends an event only while the run's record exists (one script: webhook deliveries report
   * their attempts after the run ended, possibly after its keys expired, and a plain XADD would
   * then create an event stream nobody expires). False when the run is gone: nothing written.
   */
  async appendEventIfRunExists(event: RunEvent): Promise<boolean> {
    const encoded = this.encode(event);
    const written = await defineAppendEventIfRunExistsScript(this.redis).bfAppendEventIfRunExists(this.keys.run(event.run_id), this.keys.events(event.run_id), encoded.json);
    if (written !== 1) return false;
    this.emitted([encoded]);
    return true;
  }

  /** Up to `count` events after `afterId` ('-' = from the start), oldest first, validated. */
  async readEvents(runId: string, afterId = '-', count = 1000): Promise<StoredEvent[]> {
    const start = afterId === '-' ? '-' : `(${afterId}`;
    const entries = await this.redis.xrange(this.keys.events(runId), start, '+', 'COUNT', count);
    return entries.map(parseStoredEvent);
  }

  /**
   * Like readEvents for many runs at once (one per cursor), waiting up to `blockMs` for an event
   * after any cursor: one XREAD BLOCK over every run's stream, so one connection serves the event
   * streams of many clients (src/api/events/). Returns the runs that have new events, with at most
   * `count` of them each, validated — a run whose events do not decode gets the error instead, so
   * one bad stream does not stop the others. Empty when the wait ends with nothing, or when another
   * connection ends it early (CLIENT UNBLOCK). The wait holds its connection, so the caller passes
   * one of its own (a `duplicate()`), never the engine's shared one, and owns it: it may disconnect
   * it to cut the wait short, which rejects this call. One server only: each run's keys have a
   * slot of their own, so on Redis Cluster the XREAD would be refused (CROSSSLOT) and a connection
   * blocked on one node could not wait for the others' streams — use readEventsOfRuns there.
   */
  async readEventsOfRunsBlocking(
    connection: RedisClient,
    cursors: ReadonlyArray<{ runId: string; afterId: string }>,
    blockMs: number,
    count = 1000,
  ): Promise<Map<string, StoredEvent[] | Error>> {
    const runOfKey = new Map(cursors.map((cursor) => [this.keys.events(cursor.runId), cursor.runId]));
    if (runOfKey.size !== cursors.length) throw new Error('readEventsOfRunsBlocking: one cursor per run');
    // XREAD takes an exclusive start id and has no '-': '0-0' is before every entry.
    const ids = cursors.map((cursor) => (cursor.afterId === '-' ? '0-0' : cursor.afterId));
    const reply = await connection.xread('COUNT', count, 'BLOCK', blockMs, 'STREAMS', ...runOfKey.keys(), ...ids);
    const events = new Map<string, StoredEvent[] | Error>();
    for (const [key, entries] of reply ?? []) {
      const runId = runOfKey.get(key);
      if (runId === undefined) continue;
      try {
        events.set(runId, entries.map(parseStoredEvent));
      } catch (error) {
        events.set(runId, error instanceof Error ? error : new Error(String(error)));
      }
    }
    return events;
  }

  /**
   * Like readEventsOfRunsBlocking without the wait, for Redis Cluster: one XREAD (COUNT, no BLOCK)
   * per run, sent together through the engine's client, which routes each to its run's node (one
   * XREAD cannot name streams of different slots). Returns the runs that have new events; a run
   * whose read fails or whose events do not decode gets the error instead, so one failing node or
   * bad stream does not stop the others.
   */
  async readEventsOfRuns(cursors: ReadonlyArray<{ runId: string; afterId: string }>, count = 1000): Promise<Map<string, StoredEvent[] | Error>> {
    if (new Set(cursors.map((cursor) => cursor.runId)).size !== cursors.length) throw new Error('readEventsOfRuns: one cursor per run');
    const events = new Map<string, StoredEvent[] | Error>();
    await Promise.all(
      cursors.map(async ({ runId, afterId }) => {
        try {
          const reply = await this.redis.xread('COUNT', count, 'STREAMS', this.keys.events(runId), afterId === '-' ? '0-0' : afterId);
          const entries = reply?.[0]?.[1] ?? [];
          if (entries.length > 0) events.set(runId, entries.map(parseStoredEvent));
        } catch (error) {
          events.set(runId, error instanceof Error ? error : new Error(String(error)));
        }
      }),
    );
    return events;
  }

  // ---- create, read, update, end ------------------------------------------------------------

  /** Creates the run record, its tenant index entry and its run-create event in one step. */
  async createRun(input: CreateRunInput): Promise<RunRecord> {
    const id = input.runId ?? newRunId();
    const now = new Date().toISOString();
    const record: RunRecord = {
      id,
      tenant: input.tenant,
      status: 'queued',
      phase: 'planning',
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
      webhook: input.webhook ?? null,
    };
    // In the live-run index before the record exists: a crash in between leaves an entry the
    // reaper drops (no record), never a run the reaper cannot find.
    await this.redis.zadd(this.keys.liveRuns(), Date.now(), id);
    // Scored by the record's own createdAt, so the listing's position of a run (creation ms, id)
    // is the same whether it is read from this index or from history (src/api/run-reader.ts).
    // Before the record, for the same reason as the live-run index (the tenant's index is in
    // another Cluster slot than the run's keys): a listing skips an entry whose record is missing.
    await this.redis.zadd(this.keys.runsByTenant(input.tenant), Date.parse(now), id);
    const event = this.encode({ run_id: id, step: 0, event: 'run-create', model: record.model, max_tokens: record.maxTokens, thinking: record.thinking, thinking_budget_tokens: record.thinkingBudgetTokens, effort: record.effort, thinking_display: record.thinkingDisplay, budget_usd: record.budget.costMicroUsd === null ? null : microUsdToUsd(record.budget.costMicroUsd), token_budget: record.budget.tokens, ...(record.traceId ? { trace_id: record.traceId } : {}) });
    const deprecation = input.deprecation
      ? this.encode({ run_id: id, step: 0, event: 'model-deprecated', level: 'warn', model: record.model, retires_on: input.deprecation.retiresOn, successor: input.deprecation.successor, message: input.deprecation.message })
      : null;
    const created = this.redis.multi().hset(this.keys.run(id), toFields(record)).xadd(this.keys.events(id), 'MAXLEN', '~', '10000', '*', 'data', event.json);
    if (deprecation) created.xadd(this.keys.events(id), 'MAXLEN', '~', '10000', '*', 'data', deprecation.json);
    await created.exec();
    this.emitted(deprecation ? [event, deprecation] : [event]);
    return record;
  }

  /** A page of the tenant's run index, newest first: run ids with their creation time (ms),
   * from `maxScore` down, skipping `offset` entries (entries of equal score come in descending id
   * order, which a cursor continues from). */
  async tenantRunIndex(tenant: string, page: { maxScore: number | '+inf'; offset: number; count: number }): Promise<Array<{ runId: string; score: number }>> {
    const flat = await this.redis.zrevrangebyscore(this.keys.runsByTenant(tenant), page.maxScore, '-inf', 'WITHSCORES', 'LIMIT', page.offset, page.count);
    const entries: Array<{ runId: string; score: number }> = [];
    for (let index = 0; index + 1 < flat.length; index += 2) {
      const score = Number(flat[index + 1]);
      if (!Number.isFinite(score)) throw new Error(`The run index of tenant ${tenant} holds a score that is not a number: ${flat[index + 1]}`);
      entries.push({ runId: flat[index]!, score });
    }
    return entries;
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
    await confirmClaimDurable({ redis: this.redis, durability, what: `the result of tool call ${toolUseId}`, readBack: { command: 'hexists', key: this.keys.results(runId), field: toolUseId } });
  }

  /** Confirms a turn's committed answer and outcome on `durability.replicas` replicas, or throws
   * ClaimNotDurableError (before its calls with effects are handed out: run-model-turn.ts). */
  async confirmTurnDurable(runId: string, turn: number, durability: ClaimDurability | undefined): Promise<void> {
    await confirmClaimDurable({ redis: this.redis, durability, what: `the answer of turn ${turn}`, readBack: { command: 'hexists', key: this.keys.turn(runId, turn), field: 'outcome' } });
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

  /** The run, validated (StoredRunInvalid when its hash does not decode), or null. */
  async getRun(runId: string): Promise<RunRecord | null> {
    const fields = await this.redis.hgetall(this.keys.run(runId));
    if (!fields.id) return null;
    return fromFields(fields);
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

  /** Updates fields of a run that is not terminal, with the events that announce the change;
   * returns false when the run already ended (nothing written). */
  async updateRun(runId: string, update: Partial<RunRecord>, events: RunEvent[] = []): Promise<boolean> {
    const encoded = events.map((event) => this.encode(event));
    const fields = toFields({ ...update, updatedAt: new Date().toISOString() });
    const written = await this.scripts.bfUpdateIfActive(this.keys.run(runId), this.keys.events(runId), JSON.stringify(fields), encoded.length, ...encoded.map((event) => event.json));
    if (written !== 1) return false;
    this.emitted(encoded);
    return true;
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
    before: Array<Record<string, unknown>> = [],
  ): Promise<boolean> {
    const error = outcome.error ? { code: outcome.error.code, message: redactText(outcome.error.message) } : null;
    const fields = toFields({ status, result: outcome.result ?? null, error, question: null, updatedAt: new Date().toISOString() });
    const events = [...before.map((fieldsOf) => ({ run_id: runId, step: turn, ...fieldsOf }) as RunEvent), this.runEndEvent(runId, turn, status, error)].map((event) => this.encode(event));
    const reply = await this.scripts.bfEndRun(this.keys.run(runId), this.keys.events(runId), JSON.stringify(fields), events.length, ...events.map((event) => event.json));
    if (reply === null) return false;
    this.emitted(events);
    await this.ended({ runId, tenant: reply[0], turn, status, errorCode: error?.code ?? null, webhookOwed: reply[1] === 1 });
    return true;
  }

  private runEndEvent(runId: string, turn: number, status: TerminalStatus, error: RunError | null): RunEvent {
    return { run_id: runId, step: turn, event: 'run-end', status, ...(error ? { error_code: error.code, message: error.message } : {}) };
  }

  /** After a run ended (in this process, by whichever transition): its slot, log line, observers. */
  private async ended(end: RunEnd): Promise<void> {
    this.transcripts.forget(end.runId);
    // The end happened (the script said so): it is logged and counted before anything else can fail.
    this.logger?.info({ run_id: end.runId, step: end.turn, event: 'run-end', status: end.status, error_code: end.errorCode }, 'run ended');
    for (const observer of this.endObservers) observer(end);
    // From the reaper's work list to the archive's (docs/history.md#every-finished-run-is-archived):
    // first into the unarchived index, then out of the live one, so at every moment the run is in
    // one of the two. Both are fleet-wide keys in another slot than the run's, so this cannot be
    // part of the ending script on Redis Cluster; a crash or a failure in between leaves the run
    // in the live-run index, where the reaper finds it ended and hands it over (handOffEndedRuns).
    // A run whose end owes a webhook delivery enters the owed-webhook index at the same time, and
    // before it leaves the live one, for the same reason (docs/webhooks.md#guarantee); a run without
    // a webhook costs nothing more. Two commands sent together, not a pipeline: the two indexes are
    // in different Cluster slots.
    const now = Date.now();
    const handedOver = await Promise.all([
      this.redis.zadd(this.keys.unarchivedRuns(), 'NX', now, end.runId),
      ...(end.webhookOwed ? [this.redis.zadd(this.keys.owedWebhooks(), 'GT', now, end.runId)] : []),
    ])
      .then(() => true)
      .catch((error: unknown) => {
        this.logger?.warn({ run_id: end.runId, err: error instanceof Error ? error.message : String(error) }, 'unarchived-run (or owed-webhook) index entry not added; the reaper hands the run over');
        return false;
      });
    if (handedOver) {
      await this.redis.zrem(this.keys.liveRuns(), end.runId).catch((error: unknown) => {
        this.logger?.warn({ run_id: end.runId, err: error instanceof Error ? error.message : String(error) }, 'live-run index entry not removed; the reaper drops it');
      });
    }
    // Frees the run's slot under its tenant's concurrent-run cap (src/api/limits/admit-run.ts).
    // Not inside the ending script: the tenant's set and the run hash are in different Cluster
    // slots. Only the call that made the transition gets here, and SREM is idempotent; a failure
    // or a crash in between leaves a member that admission prunes when the cap is reached.
    if (end.tenant) {
      await this.redis.srem(this.keys.activeRuns(end.tenant), end.runId).catch((error: unknown) => {
        this.logger?.warn({ run_id: end.runId, err: error instanceof Error ? error.message : String(error) }, 'active-run slot not freed; admission prunes it');
      });
    }
  }

  // ---- the reaper (src/workers/run-reaper.ts) ----------------------------------------------

  /** A page of the live-run index (ZSCAN: a run in it for the whole scan is returned at least
   * once; cursor '0' starts and ends a scan). */
  async scanLiveRuns(cursor: string, count: number): Promise<{ cursor: string; runIds: string[] }> {
    const [next, flat] = await this.redis.zscan(this.keys.liveRuns(), cursor, 'COUNT', count);
    const runIds: string[] = [];
    for (let index = 0; index < flat.length; index += 2) runIds.push(flat[index]!);
    return { cursor: next, runIds };
  }

  /** Drops runs from the live-run index: they have no record. (Runs that ended: handOffEndedRuns.) */
  async forgetLiveRuns(runIds: readonly string[]): Promise<void> {
    if (runIds.length > 0) await this.redis.zrem(this.keys.liveRuns(), ...runIds);
  }

  /** Moves runs the reaper found ended in the live-run index (their process died, or failed,
   * between the end and its bookkeeping) to the unarchived index, then out of the live one: the
   * same order as an end's own bookkeeping, so a run is never in neither. A run already archived
   * is added again only until its archive job finds it archived (or gone) and removes it. */
  async handOffEndedRuns(runIds: readonly string[], now = Date.now()): Promise<void> {
    if (runIds.length === 0) return;
    await this.redis.zadd(this.keys.unarchivedRuns(), 'NX', ...runIds.flatMap((runId) => [now, runId]));
    // Into the owed-webhook index too, whether or not they owe one (the reaper does not read their
    // records for it): the webhook sweep drops the entries of runs that owe nothing.
    await this.redis.zadd(this.keys.owedWebhooks(), 'GT', ...runIds.flatMap((runId) => [now, runId]));
    await this.redis.zrem(this.keys.liveRuns(), ...runIds);
  }

  // ---- owed webhook deliveries (src/workers/webhook-sweeper.ts, docs/webhooks.md#guarantee) ------

  /** A page of the owed-webhook index (ZSCAN), each run with its entry's score (when it ended, ms)
   * as stored, for forgetOwedWebhook. */
  async scanOwedWebhooks(cursor: string, count: number): Promise<{ cursor: string; runs: Array<{ runId: string; score: string; endedAtMs: number }> }> {
    const [next, flat] = await this.redis.zscan(this.keys.owedWebhooks(), cursor, 'COUNT', count);
    const runs: Array<{ runId: string; score: string; endedAtMs: number }> = [];
    for (let index = 0; index + 1 < flat.length; index += 2) {
      const endedAtMs = Number(flat[index + 1]);
      if (!Number.isFinite(endedAtMs)) throw new Error(`The owed-webhook index holds a score that is not a number: ${flat[index + 1]} (run ${flat[index]})`);
      runs.push({ runId: flat[index]!, score: flat[index + 1]!, endedAtMs });
    }
    return { cursor: next, runs };
  }

  /** The run and the delivery its last end owes, in one read: null when the run has no record,
   * `owed: null` when it owes none (enqueued already, or no webhook). */
  async readOwedWebhook(runId: string): Promise<{ run: RunRecord; owed: OwedWebhook | null } | null> {
    const fields = await this.redis.hgetall(this.keys.run(runId));
    if (!fields.id) return null;
    const run = fromFields(fields);
    const raw = fields.webhookOwed;
    if (!raw) return { run, owed: null };
    let decoded: unknown;
    try {
      decoded = JSON.parse(raw);
    } catch {
      throw new StoredRunInvalid(runId, 'webhookOwed', 'not JSON');
    }
    const parsed = owedWebhookSchema.safeParse(decoded);
    if (!parsed.success) throw new StoredRunInvalid(runId, 'webhookOwed', parsed.error.issues[0]?.message ?? 'invalid');
    return { run, owed: { raw, ...parsed.data } };
  }

  /** Clears the run's owed-delivery record once its job exists; false when the record is no
   * longer `owed` (a later end replaced it, or it was settled already). */
  async settleOwedWebhook(runId: string, owed: OwedWebhook): Promise<boolean> {
    return (await defineOwedWebhookScripts(this.redis).bfSettleOwedWebhook(this.keys.run(runId), owed.raw)) === 1;
  }

  /** Drops a run's owed-webhook index entry if it still has the score the caller read. */
  async forgetOwedWebhook(runId: string, score: string): Promise<boolean> {
    return (await defineOwedWebhookScripts(this.redis).bfForgetOwedWebhook(this.keys.owedWebhooks(), runId, score)) === 1;
  }

  // ---- the archive sweep (src/workers/archive-sweeper.ts) -----------------------------------

  /** A page of the unarchived-run index (ZSCAN, as scanLiveRuns), each run with when it ended (ms). */
  async scanUnarchivedRuns(cursor: string, count: number): Promise<{ cursor: string; runs: Array<{ runId: string; endedAtMs: number }> }> {
    const [next, flat] = await this.redis.zscan(this.keys.unarchivedRuns(), cursor, 'COUNT', count);
    const runs: Array<{ runId: string; endedAtMs: number }> = [];
    for (let index = 0; index + 1 < flat.length; index += 2) {
      const endedAtMs = Number(flat[index + 1]);
      if (!Number.isFinite(endedAtMs)) throw new Error(`The unarchived-run index holds a score that is not a number: ${flat[index + 1]} (run ${flat[index]})`);
      runs.push({ runId: flat[index]!, endedAtMs });
    }
    return { cursor: next, runs };
  }

  /** How many runs ended and are not archived yet (the archive backlog). */
  async countUnarchivedRuns(): Promise<number> {
    return this.redis.zcard(this.keys.unarchivedRuns());
  }

  /** Drops a run from the unarchived index: its history is in PostgreSQL, or its keys are gone. */
  async forgetUnarchivedRun(runId: string): Promise<void> {
    await this.redis.zrem(this.keys.unarchivedRuns(), runId);
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
      if (!Number.isInteger(decodedTurn) || decodedTurn < 0) return { state: 'invalid', error: new StoredRunInvalid(runId, 'turn', `not a non-negative integer: ${JSON.stringify(turn)}`) };
      const decodedShard = queueShard === null || queueShard === '' ? 0 : Number(queueShard);
      if (!isQueueShard(decodedShard)) return { state: 'invalid', error: new StoredRunInvalid(runId, 'queueShard', `not a shard: ${JSON.stringify(queueShard)}`) };
      return { state: 'found', value: { status: reading.value, turn: decodedTurn, updatedAt: updatedAt ?? '', queueShard: decodedShard } };
    });
  }

  /** The run at `turn` as the reaper judges it (bfInspectTurn), one round trip: 'moved' when the
   * run is no longer at that turn, 'missing' when it has no record. Validated like loadTurn. */
  async inspectTurn(runId: string, turn: number): Promise<TurnInspection | 'moved' | 'missing'> {
    const keys = this.keys;
    const reply = await this.scripts.bfInspectTurn(keys.run(runId), keys.turn(runId, turn), keys.turn(runId, turn - 1), keys.results(runId), String(turn));
    if (reply[0] === -1) return 'missing';
    if (reply[0] === 0) return 'moved';
    const [, status, updatedAt, inputCommitted, claimedBy, recoveries, previousRaw, recorded, traceContextRaw] = reply;
    const reading = decodeRunStatus(runId, status);
    if (reading.state !== 'found') throw new StoredRunInvalid(runId, 'status', `not a run status: ${JSON.stringify(status)}`);
    const recoveryCount = Number(recoveries);
    if (!Number.isInteger(recoveryCount) || recoveryCount < 0) throw new Error(`The turn ${turn} of run ${runId} holds recoveries that are not a count: ${recoveries}`);
    const dispatch = previousRaw ? parseOutcome(previousRaw).dispatch : [];
    return {
      status: reading.value,
      turn,
      updatedAt,
      inputCommitted: inputCommitted === '1',
      claimedBy: claimedBy || null,
      recoveries: recoveryCount,
      calls: dispatch.map((call, index) => ({ call, recorded: recorded[index] === 1 })),
      traceContext: decodeTraceContext(traceContextRaw),
    };
  }

  /**
   * Hands a turn whose jobs are all lost or dead to `jobId` (bfResumeTurn), with a `run-resume`
   * event, only if the run is still as the reaper saw it. The caller enqueues the job after:
   * 'resumed' means this call, and no other, may.
   */
  async resumeTurn(
    runId: string,
    seen: { turn: number; updatedAt: string; recoveries: number },
    resume: { jobId: string; reason: string; detail: Record<string, unknown> },
  ): Promise<'resumed' | 'changed' | 'terminal'> {
    const event = this.encode({ run_id: runId, step: seen.turn, event: 'run-resume', reason: resume.reason, job_id: resume.jobId, recovery: seen.recoveries + 1, ...resume.detail });
    const keys = this.keys;
    const code = await this.scripts.bfResumeTurn(
      keys.run(runId),
      keys.turn(runId, seen.turn),
      keys.events(runId),
      String(seen.turn),
      seen.updatedAt,
      String(seen.recoveries),
      resume.jobId,
      new Date().toISOString(),
      event.json,
    );
    if (code === 1) {
      this.emitted([event]);
      this.logger?.warn({ run_id: runId, step: seen.turn, event: 'run-resume', reason: resume.reason, job_id: resume.jobId }, 'run resumed by the reaper');
      return 'resumed';
    }
    return code === 0 ? 'changed' : 'terminal';
  }

  /** endRun, only if the run is still at the turn and last transition the reaper saw
   * (bfEndRunIfUnchanged): the same one end, event, log line and metric. */
  async endRunIfUnchanged(
    runId: string,
    seen: { turn: number; updatedAt: string },
    error: { code: RunErrorCode; message: string },
    before: Array<Record<string, unknown>> = [],
  ): Promise<'ended' | 'changed' | 'terminal'> {
    const redacted = { code: error.code, message: redactText(error.message) };
    const fields = toFields({ status: 'failed', result: null, error: redacted, question: null, updatedAt: new Date().toISOString() });
    const events = [...before.map((fieldsOf) => ({ run_id: runId, step: seen.turn, ...fieldsOf }) as RunEvent), this.runEndEvent(runId, seen.turn, 'failed', redacted)].map((event) => this.encode(event));
    const reply = await this.scripts.bfEndRunIfUnchanged(this.keys.run(runId), this.keys.events(runId), String(seen.turn), seen.updatedAt, JSON.stringify(fields), events.length, ...events.map((event) => event.json));
    if (reply[0] === 0) return 'changed';
    if (reply[0] !== 1) return 'terminal';
    this.emitted(events);
    await this.ended({ runId, tenant: reply[1] ?? '', turn: seen.turn, status: 'failed', errorCode: redacted.code, webhookOwed: reply[2] === 1 });
    return 'ended';
  }

  async setTodos(runId: string, todos: TodoState[]): Promise<void> {
    await this.redis.hset(this.keys.run(runId), 'todos', JSON.stringify(todos));
  }

  // ---- the model turn -----------------------------------------------------------------------

  /** Everything a model turn needs, in one round trip (bfLoadTurn). */
  async loadTurn(runId: string, turn: number): Promise<TurnView | null> {
    const cached = this.transcripts.get(runId);
    // From the last cached message on: it is compared, so a transcript changed by another
    // process (a pause_turn continuation rewrites the last message) is noticed and re-read.
    const from = cached ? cached.messages.length - 1 : 0;
    const keys = this.keys;
    const [runPairs, turnPairs, previousRaw, resultPairs, length, tail, trailRaw] = await this.scripts.bfLoadTurn(
      keys.run(runId),
      keys.turn(runId, turn),
      keys.turn(runId, turn - 1),
      keys.messages(runId),
      keys.results(runId),
      keys.trail(runId),
      from,
    );
    const runFields = pairsToFields(runPairs);
    if (!runFields.id) return null;
    const turnFields = pairsToFields(turnPairs);
    // Answers charged by an attempt that failed before adding their spend to the tenant. A
    // transient failure fails this attempt too (its retry tries again); a tenant counter that is
    // damaged (not a hash, not a number: no retry can add to it) is logged and the spend kept on
    // the turn, where loading the turn again adds it once the counter is repaired — the run's own
    // accounting is complete, and one damaged counter must not stop every run of its tenant.
    for (const [field, raw] of Object.entries(turnFields)) {
      if (!isPendingSpendField(field)) continue;
      try {
        await this.addPendingTenantSpend(runId, turn, runFields.tenant ?? '', field, raw);
      } catch (error) {
        const message = error instanceof Error ? error.message : String(error);
        if (!DAMAGED_TENANT_SPEND.test(message)) throw error;
        this.logger?.error({ run_id: runId, step: turn, field, err: message }, 'tenant spend counter damaged; the spend stays pending on the turn');
      }
    }
    let messages: unknown[];
    let transcriptCharacters: number;
    // Appended only where the cached transcript still ends (another load of the same run in this
    // process may have replaced it meanwhile): anything else is a miss.
    const hit = cached && tail[0] === cached.lastRaw && from + tail.length === Number(length) ? this.transcripts.appendAt(runId, from + 1, tail.slice(1)) : undefined;
    if (hit) {
      messages = [...hit.messages];
      transcriptCharacters = hit.bytes;
    } else {
      const all = from === 0 ? tail : await this.redis.lrange(keys.messages(runId), 0, -1);
      const loaded = this.transcripts.replace(runId, all);
      messages = [...loaded.messages];
      transcriptCharacters = loaded.bytes;
    }
    const results = new Map<string, StoredToolResult | null>();
    for (let index = 0; index + 1 < resultPairs.length; index += 2) {
      results.set(resultPairs[index]!, resultPairs[index + 1] ? parseToolResult(resultPairs[index + 1]!) : null);
    }
    return {
      run: fromFields(runFields),
      turn: {
        inputCommitted: turnFields.inputCommitted === '1',
        claimedBy: turnFields.claimedBy ?? null,
        outcome: turnFields.outcome ? parseOutcome(turnFields.outcome) : null,
        overloadSince: turnFields.overloadSince ? Number(turnFields.overloadSince) : null,
      },
      previousOutcome: previousRaw ? parseOutcome(previousRaw) : null,
      results,
      messages,
      transcriptCharacters,
      trail: trailRaw.map(parseTrailEntry),
    };
  }

  /**
   * Commits the turn's user input once (with `fields` on the run and the events that describe
   * it) and claims the turn for `jobId`. Returns the turn's owner, or 'terminal' / 'missing'.
   */
  async startTurn(
    runId: string,
    turn: number,
    input: { jobId: string; fields: Record<string, string>; messages: unknown[]; events: RunEvent[] },
  ): Promise<{ owner: string; committedNow: boolean; appendedCharacters: number } | 'terminal' | 'missing'> {
    const encoded = input.events.map((event) => this.encode(event));
    const raws = input.messages.map((message) => JSON.stringify(message));
    const keys = this.keys;
    const reply = await this.scripts.bfStartTurn(
      keys.run(runId),
      keys.turn(runId, turn),
      keys.messages(runId),
      keys.events(runId),
      JSON.stringify(input.fields),
      input.jobId,
      encoded.length,
      ...encoded.map((event) => event.json),
      ...raws,
    );
    if (reply[0] === -1) return 'missing';
    if (reply[0] === -2) return 'terminal';
    if (reply[0] === 1) {
      this.emitted(encoded);
      this.transcripts.appendIfAt(runId, Number(reply[2]) - raws.length, raws);
    }
    return { owner: reply[1] ?? '', committedNow: reply[0] === 1, appendedCharacters: raws.reduce((sum, raw) => sum + raw.length, 0) };
  }

  /**
   * Commits the model's answer and the turn's outcome once (bfCommitAnswer). When the decision
   * ends the run, `end` ends it in the same step. Returns the outcome that stands — this one, or
   * the one a concurrent owner committed first — or 'terminal' when the run had ended.
   */
  async commitAnswer(
    runId: string,
    turn: number,
    commit: {
      response: unknown;
      /** The API's id of the answer (msg_…): marks its charge to the tenant once. */
      answerId: string;
      usage: Usage;
      /** The answer's cost in whole micro-dollars (src/domain/usage-cost.ts), added to the run's
       * and, once committed, to its tenant's day and month. */
      costMicroUsd: number;
      assistant: unknown | null;
      placement: 'append' | 'replace_last';
      fields: Record<string, string>;
      outcome: TurnOutcome;
      events: RunEvent[];
      answered: Array<{ result: StoredToolResult; trail: TrailEntry }>;
      end: { status: TerminalStatus; result: string | null; error: { code: RunErrorCode; message: string } | null } | null;
    },
  ): Promise<{ outcome: TurnOutcome; committed: boolean; usage: Usage | null; costMicroUsd: number | null } | 'terminal'> {
    const keys = this.keys;
    // One marker per paid answer: a second answer to the same turn (another attempt of the job
    // committed first) is a second charge, not a repeat of the first.
    const pending: PendingSpend = { ...spendPeriods(new Date()), costMicroUsd: commit.costMicroUsd, usage: commit.usage, marker: `${runId}:${turn}:${commit.answerId}` };
    const endError = commit.end?.error ? { code: commit.end.error.code, message: redactText(commit.end.error.message) } : null;
    const events = [...commit.events];
    if (commit.end) events.push(this.runEndEvent(runId, turn, commit.end.status, endError));
    const encoded = events.map((event) => this.encode(event));
    const endFields = commit.end ? JSON.stringify(toFields({ status: commit.end.status, result: commit.end.result, error: endError, question: null })) : '';
    const answered = commit.answered.flatMap(({ result, trail }) => [trail.toolUseId, JSON.stringify(redactValue(result)), JSON.stringify(trail)]);
    const assistantRaw = commit.assistant === null ? '' : JSON.stringify(commit.assistant);
    const reply = await this.scripts.bfCommitAnswer(
      keys.run(runId),
      keys.turn(runId, turn),
      keys.messages(runId),
      keys.events(runId),
      keys.results(runId),
      keys.trail(runId),
      JSON.stringify(commit.response),
      JSON.stringify(commit.usage),
      assistantRaw,
      commit.placement,
      JSON.stringify(commit.fields),
      JSON.stringify(commit.outcome),
      endFields,
      String(commit.costMicroUsd),
      JSON.stringify(pending),
      encoded.length,
      ...encoded.map((event) => event.json),
      ...answered,
    );
    if (reply[0] === -1) return 'terminal';
    if (reply[0] === -2) {
      // The run had ended, but the answer was paid for: its tenant pays too.
      await this.addTenantSpend(runId, turn, reply[1], pending);
      return 'terminal';
    }
    if (reply[0] === 0) {
      this.transcripts.forget(runId);
      await this.addTenantSpend(runId, turn, reply[2], pending);
      return { outcome: parseOutcome(reply[1]), committed: false, usage: null, costMicroUsd: null };
    }
    this.emitted(encoded);
    if (assistantRaw) {
      if (commit.placement === 'replace_last') this.transcripts.replaceLast(runId, assistantRaw);
      else this.transcripts.appendIfAt(runId, null, [assistantRaw]);
    }
    const usage = usageSchema.parse(JSON.parse(reply[1]));
    if (reply[2] === 1 && commit.end) {
      await this.ended({ runId, tenant: reply[3], turn, status: commit.end.status, errorCode: endError?.code ?? null, webhookOwed: reply[5] === 1 });
    }
    // After the end's bookkeeping: a failure here fails the job, and its retry, loading this turn,
    // adds the pending spend (loadTurn) — it cannot redo the end.
    await this.addTenantSpend(runId, turn, reply[3], pending);
    return { outcome: commit.outcome, committed: true, usage, costMicroUsd: Number(reply[4]) };
  }

  // ---- spend --------------------------------------------------------------------------------

  /**
   * Adds an answer's spend to its tenant's day and month (bfAddTenantSpend, once per marker), then
   * drops it from the turn. Two steps because the tenant's keys are in another Cluster slot than
   * the run's (tenant-spend.ts); until the second, the spend stays pending on the turn, where the
   * turn's next load finds it.
   */
  private async addTenantSpend(runId: string, turn: number, tenant: string, pending: PendingSpend): Promise<void> {
    if (tenant) {
      const increments = spendIncrements(pending);
      if (increments.length > 0) {
        const keys = this.keys;
        await this.tenantSpendScripts.bfAddTenantSpend(
          keys.tenantSpend(tenant, `day:${pending.day}`),
          keys.tenantSpend(tenant, `month:${pending.month}`),
          keys.tenantSpendApplied(tenant, pending.day),
          pending.marker,
          TENANT_SPEND_TTL_SECONDS.day,
          TENANT_SPEND_TTL_SECONDS.month,
          TENANT_SPEND_TTL_SECONDS.marker,
          ...increments,
        );
      }
    }
    await this.redis.hdel(this.keys.turn(runId, turn), pendingSpendField(pending.marker));
  }

  /** addTenantSpend, but a failure on the tenant's side is logged and the spend stays pending on
   * the turn: the failed call's job is retried, and its next attempt's loadTurn adds it. */
  private async addTenantSpendOrKeep(runId: string, turn: number, tenant: string, pending: PendingSpend): Promise<void> {
    try {
      await this.addTenantSpend(runId, turn, tenant, pending);
    } catch (error) {
      this.logger?.error({ run_id: runId, step: turn, err: error instanceof Error ? error.message : String(error) }, 'tenant spend not added; kept pending on the turn');
    }
  }

  /**
   * Charges a call that failed after its stream started (model-client.ts paidUsageOfFailedCall):
   * the run's usage and cost (ended or not) and, once, its tenant's day and month. `callId` tells
   * the charge apart from the answers of the same turn (the request id, when the API gave one).
   */
  async chargeFailedCall(runId: string, turn: number, charge: { callId: string; usage: Usage; costMicroUsd: number }): Promise<void> {
    const pending: PendingSpend = { ...spendPeriods(new Date()), costMicroUsd: charge.costMicroUsd, usage: charge.usage, marker: `${runId}:${turn}:failed:${charge.callId}` };
    const reply = await this.scripts.bfChargeCall(this.keys.run(runId), this.keys.turn(runId, turn), JSON.stringify(charge.usage), String(charge.costMicroUsd), JSON.stringify(pending));
    if (reply[0] === 1) await this.addTenantSpendOrKeep(runId, turn, reply[1] ?? '', pending);
  }

  /** A spend a committed answer left pending on its turn (the worker died between the two steps):
   * added now. One that does not decode cannot be counted; it is logged and dropped. */
  private async addPendingTenantSpend(runId: string, turn: number, tenant: string, field: string, raw: string): Promise<void> {
    let value: unknown;
    try {
      value = JSON.parse(raw);
    } catch {
      value = undefined;
    }
    const parsed = pendingSpendSchema.safeParse(value);
    if (!parsed.success) {
      this.logger?.error({ run_id: runId, step: turn, pending: raw.slice(0, 200) }, 'pending tenant spend does not decode; dropped');
      await this.redis.hdel(this.keys.turn(runId, turn), field);
      return;
    }
    await this.addTenantSpend(runId, turn, tenant, parsed.data);
  }

  /** The tenant's spend on the UTC day and in the UTC month of `at` (default now): cost and tokens
   * by class, validated; zero when nothing was spent (or the counters expired). */
  async tenantSpend(tenant: string, at: Date = new Date()): Promise<{ day: TenantSpendPeriod; month: TenantSpendPeriod }> {
    const { day, month } = spendPeriods(at);
    const dayKey = this.keys.tenantSpend(tenant, `day:${day}`);
    const monthKey = this.keys.tenantSpend(tenant, `month:${month}`);
    // One slot (the tenant's hash tag): a pipeline of both reads is one round trip.
    const [dayFields, monthFields] = (await execPipeline(this.redis.pipeline().hgetall(dayKey).hgetall(monthKey), 2)) as Array<Record<string, string>>;
    return {
      day: decodeTenantSpend({ key: dayKey, period: day, fields: dayFields ?? {} }),
      month: decodeTenantSpend({ key: monthKey, period: month, fields: monthFields ?? {} }),
    };
  }

  /** Parks the run for its open question unless the answer is there already. */
  async parkForInput(runId: string, turn: number, question: { toolUseId: string; question: string }): Promise<'parked' | 'answered' | 'terminal'> {
    const event = this.encode({ run_id: runId, step: turn, event: 'input-wait', question: question.question, tool_use_id: question.toolUseId });
    const code = await this.scripts.bfParkForInput(this.keys.run(runId), this.keys.results(runId), this.keys.events(runId), question.toolUseId, new Date().toISOString(), event.json);
    if (code === 0) {
      this.emitted([event]);
      for (const observer of this.parkObservers) observer({ runId, turn, toolUseId: question.toolUseId, question: question.question });
      return 'parked';
    }
    return code === 1 ? 'answered' : 'terminal';
  }

  /** Closes the run's open ask_user call with the user's answer (bfAnswerQuestion). */
  async answerQuestion(
    runId: string,
    question: { toolUseId: string; turn: number },
    result: StoredToolResult,
    trail: TrailEntry,
  ): Promise<'resume' | 'recorded' | 'no_open_question' | 'terminal'> {
    const event = this.encode({ run_id: runId, step: question.turn, event: 'input-receive', tool_use_id: question.toolUseId });
    const keys = this.keys;
    const code = await this.scripts.bfAnswerQuestion(
      keys.run(runId),
      keys.results(runId),
      keys.trail(runId),
      keys.events(runId),
      question.toolUseId,
      JSON.stringify(redactValue(result)),
      JSON.stringify(trail),
      new Date().toISOString(),
      event.json,
    );
    if (code === -2) return 'terminal';
    if (code === 0) return 'no_open_question';
    this.emitted([event]);
    return code === 1 ? 'resume' : 'recorded';
  }

  /** When this turn first met an overloaded API (epoch ms), remembered across attempts. */
  async noteTurnOverload(runId: string, turn: number, now = Date.now()): Promise<number> {
    return Number(await this.scripts.bfNoteTurnOverload(this.keys.turn(runId, turn), now));
  }

  /** Counts one more retry-after cycle of the turn; returns the count. */
  async countRateLimitCycle(runId: string, turn: number): Promise<number> {
    return this.redis.hincrby(this.keys.turn(runId, turn), 'rateLimitCycles', 1);
  }

  // ---- transcript ---------------------------------------------------------------------------

  async getMessages(runId: string): Promise<unknown[]> {
    const raw = await this.redis.lrange(this.keys.messages(runId), 0, -1);
    return raw.map((entry) => JSON.parse(entry) as unknown);
  }

  // ---- tool calls ---------------------------------------------------------------------------

  /** A tool job's start: its recorded result if it has one, else the run — one round trip. */
  async loadToolCall(runId: string, toolUseId: string): Promise<{ recorded: StoredToolResult } | { run: RunRecord } | 'missing'> {
    const [recorded, runPairs] = await this.scripts.bfLoadToolCall(this.keys.results(runId), this.keys.run(runId), toolUseId);
    if (recorded) return { recorded: parseToolResult(recorded) };
    const fields = pairsToFields(runPairs);
    if (!fields.id) return 'missing';
    return { run: fromFields(fields) };
  }

  async getStoredToolResult(runId: string, toolUseId: string): Promise<StoredToolResult | null> {
    const raw = await this.redis.hget(this.keys.results(runId), toolUseId);
    return raw === null ? null : parseToolResult(raw);
  }

  /** Stores a tool's result, its trail entry and its events together, once; returns what is
   * stored (an earlier result, and no new events, if this call was answered before). */
  async recordToolResult(runId: string, result: StoredToolResult, trail: TrailEntry, events: RunEvent[] = []): Promise<StoredToolResult> {
    const encoded = events.map((event) => this.encode(event));
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
    this.emitted(encoded);
    return safe;
  }

  // ---- trail (what the tools did, for the finish gate) --------------------------------------

  async getTrail(runId: string): Promise<TrailEntry[]> {
    const raw = await this.redis.lrange(this.keys.trail(runId), 0, -1);
    return raw.map(parseTrailEntry);
  }

  /** The run's write journal (effect-scripts.ts), for audits. */
  async getWriteJournal(runId: string): Promise<unknown[]> {
    return (await this.redis.lrange(writesKey(this.keys, runId), 0, -1)).map((raw) => JSON.parse(raw) as unknown);
  }

  // ---- workspace and deployments ------------------------------------------------------------

  async readFile(runId: string, path: string): Promise<string | null> {
    return this.redis.hget(this.keys.files(runId), path);
  }

  async listFiles(runId: string): Promise<Array<{ path: string; bytes: number }>> {
    const files = await this.redis.hgetall(this.keys.files(runId));
    return Object.entries(files)
      .map(([path, content]) => ({ path, bytes: Buffer.byteLength(content) }))
      .sort((left, right) => left.path.localeCompare(right.path));
  }

  async deploymentExists(runId: string, deployId: string): Promise<boolean> {
    return (await this.redis.zscore(this.keys.deployments(runId), deployId)) !== null;
  }

  async countDeployments(runId: string): Promise<number> {
    return this.redis.zcard(this.keys.deployments(runId));
  }

  /** The deploy ids the run recorded (its deployments set), oldest first. */
  async listDeploymentIds(runId: string): Promise<string[]> {
    return this.redis.zrange(this.keys.deployments(runId), 0, -1);
  }

  /** Entries of the run's write journal (effect-scripts.ts): every publish's position is below it. */
  async writeJournalLength(runId: string): Promise<number> {
    return this.redis.llen(writesKey(this.keys, runId));
  }

  // ---- history (src/workers/archive-worker.ts) ----------------------------------------------

  /**
   * Everything the engine holds of a run that ended, for its archive in PostgreSQL: the record,
   * each turn's committed answer and outcome, the tool ledger, the trail, the whole event stream
   * and the transcript — validated like every read. Null when the run is missing; 'live' when it
   * has not ended (its state still changes, so it is not archived yet).
   */
  /** The id of the job that claimed the run's turn (its model call), or null when none did. */
  async turnClaimant(runId: string, turn: number): Promise<string | null> {
    return this.redis.hget(this.keys.turn(runId, turn), 'claimedBy');
  }

  async readRunForArchive(runId: string): Promise<RunArchiveSource | null | 'live'> {
    const run = await this.getRun(runId);
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
    const run = await this.getRun(runId);
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
    for (let after = '-'; ; ) {
      const page = await this.readEvents(runId, after, 1000);
      events.push(...page);
      if (page.length < 1000) break;
      after = page.at(-1)!.id;
    }
    return { run, turns, results, trail: await this.getTrail(runId), events, messages: await this.getMessages(runId), files: await this.listFiles(runId) };
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
    if (tenant) await this.redis.zrem(this.keys.runsByTenant(tenant), runId);
    await this.forgetUnarchivedRun(runId);
    return reply === 1 ? 'expiring' : 'missing';
  }

  // ---- resume (src/fleet/run-commands.ts resumeRun) -----------------------------------------

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
    const event = this.encode({ run_id: runId, step: turn, event: 'run-reopen', job_id: jobId, error_code: code, reopen: reopens + 1 });
    // The failed turn's hash second (KEYS[2]); runKeysOf names it again among the rest, harmlessly.
    const keys = [this.keys.run(runId), this.keys.turn(runId, turn), this.keys.events(runId), ...runKeysOf(this.keys, runId, { turns: turn }).slice(1)];
    const reply = await defineReopenRunScript(this.redis).bfReopenRun(keys.length, ...keys, String(turn), String(reopens), jobId, new Date().toISOString(), event.json, ...reopen.resumableCodes);
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
    this.emitted([event]);
    this.logger?.info({ run_id: runId, step: turn, event: 'run-reopen', job_id: jobId, error_code: code }, 'run reopened');
    // First into the live index, then out of the unarchived one (as an end does the reverse), so
    // the run is always on one work list.
    await this.redis.zadd(this.keys.liveRuns(), Date.now(), runId);
    await this.forgetUnarchivedRun(runId);
    await this.redis.zadd(this.keys.runsByTenant(run.tenant), Date.parse(run.createdAt), runId);
    return { kind: 'reopened', run, jobId };
  }
}

/** Every key a run can have, the run hash first (bfExpireArchivedRun's KEYS[1]). Keys that do
 * not exist cost the script one PEXPIRE that does nothing. */
function runKeysOf(keys: KeySpace, runId: string, { turns }: { turns: number }): string[] {
  return [
    keys.run(runId),
    keys.messages(runId),
    keys.events(runId),
    keys.results(runId),
    keys.files(runId),
    keys.deployments(runId),
    keys.trail(runId),
    themeKey(keys, runId),
    assetsKey(keys, runId),
    screenshotsKey(keys, runId),
    writesKey(keys, runId),
    runUpstreamsKey(keys, runId),
    // Turns count from 1; 0 and one past the last cost nothing and cover a turn being claimed.
    ...Array.from({ length: turns + 2 }, (_, turn) => keys.turn(runId, turn)),
  ];
}

const traceCarrierSchema = z.record(z.string(), z.string());

/** A stored trace context; one that does not decode only loses the trace link, never the run. */
function decodeTraceContext(raw: string): Record<string, string> {
  if (!raw) return {};
  try {
    const parsed = traceCarrierSchema.safeParse(JSON.parse(raw));
    return parsed.success ? parsed.data : {};
  } catch {
    return {};
  }
}

function parseOutcome(raw: string): TurnOutcome {
  return turnOutcomeSchema.parse(JSON.parse(raw));
}

const trailEntrySchema = z.object({
  tool: z.string(),
  ok: z.boolean(),
  phase: z.enum(PHASES),
  turn: z.int(),
  toolUseId: z.string(),
  detail: z.string().optional(),
});

/** A trail entry as stored (the finish gate decides from these): validated. */
function parseTrailEntry(raw: string): TrailEntry {
  const parsed = trailEntrySchema.safeParse(JSON.parse(raw));
  if (!parsed.success) throw new Error(`A stored trail entry does not decode: ${raw.slice(0, 120)}`);
  return parsed.data as TrailEntry;
}

function parseToolResult(raw: string): StoredToolResult {
  const value = JSON.parse(raw) as StoredToolResult;
  if (typeof value?.content !== 'string' || typeof value.is_error !== 'boolean') throw new Error(`A stored tool result does not decode: ${raw.slice(0, 120)}`);
  return value;
}

// The shape every event has once encode() stored it; the API documents the same (storedEventSchema).
const storedEventDataSchema = z.looseObject({ run_id: z.string(), step: z.number(), event: z.string(), at: z.string() });

/** One event stream entry ([id, [field, value, …]], from XRANGE or XREAD), validated: its `data`
 * field is the event's JSON. The stream id is set last, so it is the id whatever the data holds
 * (clients resume from it with Last-Event-ID). */
function parseStoredEvent([id, fields]: [string, string[]]): StoredEvent {
  let raw: string | undefined;
  for (let index = 0; index + 1 < fields.length; index += 2) if (fields[index] === 'data') raw = fields[index + 1];
  let value: unknown;
  try {
    value = raw === undefined ? undefined : JSON.parse(raw);
  } catch {
    value = undefined;
  }
  const parsed = storedEventDataSchema.safeParse(value);
  if (!parsed.success) throw new Error(`The stored event ${id} does not decode: ${(raw ?? '(no data field)').slice(0, 120)}`);
  return { ...parsed.data, id };
}
