// The run engine: the one owner of a run's state. Every key of a run (keys.ts), every script that
// changes it (run-scripts.ts, effect-scripts.ts) and every transition — create, commit a turn's
// input and claim it, commit the model's answer and its outcome, record a tool result, park for
// input and answer, end (once, with its event, log line and metric), cancel — goes through here,
// and everything read back is validated (run-record.ts, run-summary.ts, turn-outcome.ts, events).
// A transition and the events that describe it are one script, so a turn costs a handful of round
// trips; the transcript is cached per run in this process (transcript-cache.ts) and only its new
// tail is read each turn.
//
// RunEngine is a facade: the work is done by its systems (systems/*-system.ts), each owning the keys
// and scripts of one part of a run's state, in the manner of trigger.dev's run engine. Each method
// here hands its arguments to the system that owns it (the doc comment is on the system's method).
// Code outside src/engine/ reaches all this through src/engine/index.ts only.
import type { RedisClient } from '../redis/redis-connection.js';
import type { KeySpace } from './keys.js';
import { defineRunScripts, type RunScripts } from './run-scripts.js';
import { TranscriptCache } from './transcript-cache.js';
import type { RunEngineOptions } from './engine-types.js';
import type { EngineContext } from './systems/engine-system.js';
import { AdmissionSystem } from './systems/admission-system.js';
import { IdempotencySystem } from './systems/idempotency-system.js';
import { LifecycleSystem } from './systems/lifecycle-system.js';
import { EventSystem } from './systems/event-system.js';
import { TurnSystem } from './systems/turn-system.js';
import { SpendSystem } from './systems/spend-system.js';
import { ToolCallSystem } from './systems/tool-call-system.js';
import { EffectSystem } from './systems/effect-system.js';
import { IndexSystem } from './systems/index-system.js';
import { ArchiveSystem } from './systems/archive-system.js';
import { UpstreamSystem } from './systems/upstream-system.js';

export { newRunId } from './engine-types.js';
export type {
  CreateRunInput,
  OwedWebhook,
  RunArchiveSource,
  RunEnd,
  RunEndObserver,
  RunEngineOptions,
  RunEvent,
  RunEventObserver,
  RunPark,
  RunParkObserver,
  RunProgress,
  StoredEvent,
  StoredToolResult,
  TrailEntry,
  TurnInspection,
  TurnView,
} from './engine-types.js';

export class RunEngine {
  readonly scripts: RunScripts;
  private readonly admission: AdmissionSystem;
  private readonly idempotency: IdempotencySystem;
  private readonly lifecycle: LifecycleSystem;
  private readonly events: EventSystem;
  private readonly turns: TurnSystem;
  private readonly spend: SpendSystem;
  private readonly toolCalls: ToolCallSystem;
  private readonly effects: EffectSystem;
  private readonly indexes: IndexSystem;
  private readonly archive: ArchiveSystem;
  private readonly upstreams: UpstreamSystem;

  constructor(
    readonly redis: RedisClient,
    readonly keys: KeySpace,
    options: RunEngineOptions = {},
  ) {
    this.scripts = defineRunScripts(redis);
    const context: EngineContext = {
      redis,
      keys,
      scripts: this.scripts,
      transcripts: new TranscriptCache(options.transcriptCacheBytes ?? 64 * 1024 * 1024),
      logger: options.logger,
    };
    this.events = new EventSystem(context);
    this.indexes = new IndexSystem(context);
    this.spend = new SpendSystem(context);
    // Admission prunes ended runs from the active-run set by their statuses, which the lifecycle
    // system reads; the lifecycle system frees an ended run's slot through admission.
    this.admission = new AdmissionSystem(context, (runIds) => this.lifecycle.runStatuses(runIds));
    this.lifecycle = new LifecycleSystem(context, this.events, this.indexes, this.admission);
    this.idempotency = new IdempotencySystem(context, this.lifecycle);
    this.turns = new TurnSystem(context, this.events, this.lifecycle, this.spend);
    this.toolCalls = new ToolCallSystem(context, this.events);
    this.effects = new EffectSystem(context);
    this.archive = new ArchiveSystem(context, this.events, this.lifecycle, this.indexes, this.turns, this.toolCalls, this.effects);
    this.upstreams = new UpstreamSystem(context);
  }

  // ---- create, read, update, end, reopen (lifecycle-system.ts) -----------------------------------
  readonly createRun: LifecycleSystem['createRun'] = (...args) => this.lifecycle.createRun(...args);
  readonly getRun: LifecycleSystem['getRun'] = (...args) => this.lifecycle.getRun(...args);
  readonly queueShardOf: LifecycleSystem['queueShardOf'] = (...args) => this.lifecycle.queueShardOf(...args);
  readonly statusOf: LifecycleSystem['statusOf'] = (...args) => this.lifecycle.statusOf(...args);
  readonly runStatuses: LifecycleSystem['runStatuses'] = (...args) => this.lifecycle.runStatuses(...args);
  readonly runSummaries: LifecycleSystem['runSummaries'] = (...args) => this.lifecycle.runSummaries(...args);
  readonly runProgress: LifecycleSystem['runProgress'] = (...args) => this.lifecycle.runProgress(...args);
  readonly updateRun: LifecycleSystem['updateRun'] = (...args) => this.lifecycle.updateRun(...args);
  readonly setTodos: LifecycleSystem['setTodos'] = (...args) => this.lifecycle.setTodos(...args);
  readonly endRun: LifecycleSystem['endRun'] = (...args) => this.lifecycle.endRun(...args);
  readonly endRunIfUnchanged: LifecycleSystem['endRunIfUnchanged'] = (...args) => this.lifecycle.endRunIfUnchanged(...args);
  readonly reopenFailedRun: LifecycleSystem['reopenFailedRun'] = (...args) => this.lifecycle.reopenFailedRun(...args);

  // ---- admission: rate limit, active-run cap, Idempotency-Key (admission-system.ts, idempotency-system.ts)
  readonly admitRun: AdmissionSystem['admitRun'] = (...args) => this.admission.admitRun(...args);
  readonly releaseRunAdmission: AdmissionSystem['releaseRunAdmission'] = (...args) => this.admission.releaseRunAdmission(...args);
  readonly holdsAdmissionSlot: AdmissionSystem['holdsSlot'] = (...args) => this.admission.holdsSlot(...args);
  readonly activeRunCount: AdmissionSystem['activeRunCount'] = (...args) => this.admission.activeRunCount(...args);
  readonly submitIdempotently: IdempotencySystem['submitIdempotently'] = (...args) => this.idempotency.submitIdempotently(...args);

  // ---- events and observers (event-system.ts) ----------------------------------------------------
  readonly observeEvents: EventSystem['observeEvents'] = (...args) => this.events.observeEvents(...args);
  readonly observeRunEnds: EventSystem['observeRunEnds'] = (...args) => this.events.observeRunEnds(...args);
  readonly observeParks: EventSystem['observeParks'] = (...args) => this.events.observeParks(...args);
  readonly appendEvent: EventSystem['appendEvent'] = (...args) => this.events.appendEvent(...args);
  readonly appendEventIfRunExists: EventSystem['appendEventIfRunExists'] = (...args) => this.events.appendEventIfRunExists(...args);
  readonly readEvents: EventSystem['readEvents'] = (...args) => this.events.readEvents(...args);
  readonly readEventsOfRunsBlocking: EventSystem['readEventsOfRunsBlocking'] = (...args) => this.events.readEventsOfRunsBlocking(...args);
  readonly readEventsOfRuns: EventSystem['readEventsOfRuns'] = (...args) => this.events.readEventsOfRuns(...args);

  // ---- the model turn (turn-system.ts) -----------------------------------------------------------
  readonly loadTurn: TurnSystem['loadTurn'] = (...args) => this.turns.loadTurn(...args);
  readonly startTurn: TurnSystem['startTurn'] = (...args) => this.turns.startTurn(...args);
  readonly commitAnswer: TurnSystem['commitAnswer'] = (...args) => this.turns.commitAnswer(...args);
  readonly parkForInput: TurnSystem['parkForInput'] = (...args) => this.turns.parkForInput(...args);
  readonly answerQuestion: TurnSystem['answerQuestion'] = (...args) => this.turns.answerQuestion(...args);
  readonly noteTurnOverload: TurnSystem['noteTurnOverload'] = (...args) => this.turns.noteTurnOverload(...args);
  readonly countRateLimitCycle: TurnSystem['countRateLimitCycle'] = (...args) => this.turns.countRateLimitCycle(...args);
  readonly getMessages: TurnSystem['getMessages'] = (...args) => this.turns.getMessages(...args);
  readonly turnClaimant: TurnSystem['turnClaimant'] = (...args) => this.turns.turnClaimant(...args);
  readonly confirmTurnDurable: TurnSystem['confirmTurnDurable'] = (...args) => this.turns.confirmTurnDurable(...args);
  readonly inspectTurn: TurnSystem['inspectTurn'] = (...args) => this.turns.inspectTurn(...args);
  readonly resumeTurn: TurnSystem['resumeTurn'] = (...args) => this.turns.resumeTurn(...args);

  // ---- tenants' spend (spend-system.ts) ----------------------------------------------------------
  readonly chargeFailedCall: SpendSystem['chargeFailedCall'] = (...args) => this.spend.chargeFailedCall(...args);
  readonly tenantSpend: SpendSystem['tenantSpend'] = (...args) => this.spend.tenantSpend(...args);

  // ---- tool calls: the ledger and the trail (tool-call-system.ts) --------------------------------
  readonly loadToolCall: ToolCallSystem['loadToolCall'] = (...args) => this.toolCalls.loadToolCall(...args);
  readonly getStoredToolResult: ToolCallSystem['getStoredToolResult'] = (...args) => this.toolCalls.getStoredToolResult(...args);
  readonly recordToolResult: ToolCallSystem['recordToolResult'] = (...args) => this.toolCalls.recordToolResult(...args);
  readonly confirmToolResultDurable: ToolCallSystem['confirmToolResultDurable'] = (...args) => this.toolCalls.confirmToolResultDurable(...args);
  readonly getTrail: ToolCallSystem['getTrail'] = (...args) => this.toolCalls.getTrail(...args);
  readonly getWriteJournal: ToolCallSystem['getWriteJournal'] = (...args) => this.toolCalls.getWriteJournal(...args);
  readonly saveLastKnownGood: ToolCallSystem['saveLastKnownGood'] = (...args) => this.toolCalls.saveLastKnownGood(...args);
  readonly loadLastKnownGood: ToolCallSystem['loadLastKnownGood'] = (...args) => this.toolCalls.loadLastKnownGood(...args);

  // ---- workspace and deployments (effect-system.ts) ----------------------------------------------
  readonly readFile: EffectSystem['readFile'] = (...args) => this.effects.readFile(...args);
  readonly listFiles: EffectSystem['listFiles'] = (...args) => this.effects.listFiles(...args);
  readonly deploymentExists: EffectSystem['deploymentExists'] = (...args) => this.effects.deploymentExists(...args);
  readonly countDeployments: EffectSystem['countDeployments'] = (...args) => this.effects.countDeployments(...args);
  readonly listDeploymentIds: EffectSystem['listDeploymentIds'] = (...args) => this.effects.listDeploymentIds(...args);
  readonly writeJournalLength: EffectSystem['writeJournalLength'] = (...args) => this.effects.writeJournalLength(...args);

  // ---- the live, unarchived, owed-webhook and tenant indexes (index-system.ts) -------------------
  readonly tenantRunIndex: IndexSystem['tenantRunIndex'] = (...args) => this.indexes.tenantRunIndex(...args);
  readonly scanLiveRuns: IndexSystem['scanLiveRuns'] = (...args) => this.indexes.scanLiveRuns(...args);
  readonly forgetLiveRuns: IndexSystem['forgetLiveRuns'] = (...args) => this.indexes.forgetLiveRuns(...args);
  readonly handOffEndedRuns: IndexSystem['handOffEndedRuns'] = (...args) => this.indexes.handOffEndedRuns(...args);
  readonly scanOwedWebhooks: IndexSystem['scanOwedWebhooks'] = (...args) => this.indexes.scanOwedWebhooks(...args);
  readonly readOwedWebhook: IndexSystem['readOwedWebhook'] = (...args) => this.indexes.readOwedWebhook(...args);
  readonly settleOwedWebhook: IndexSystem['settleOwedWebhook'] = (...args) => this.indexes.settleOwedWebhook(...args);
  readonly forgetOwedWebhook: IndexSystem['forgetOwedWebhook'] = (...args) => this.indexes.forgetOwedWebhook(...args);
  readonly scanUnarchivedRuns: IndexSystem['scanUnarchivedRuns'] = (...args) => this.indexes.scanUnarchivedRuns(...args);
  readonly countUnarchivedRuns: IndexSystem['countUnarchivedRuns'] = (...args) => this.indexes.countUnarchivedRuns(...args);
  readonly forgetUnarchivedRun: IndexSystem['forgetUnarchivedRun'] = (...args) => this.indexes.forgetUnarchivedRun(...args);

  // ---- history (archive-system.ts) ---------------------------------------------------------------
  readonly readRunForArchive: ArchiveSystem['readRunForArchive'] = (...args) => this.archive.readRunForArchive(...args);
  readonly readRunPayloadSource: ArchiveSystem['readRunPayloadSource'] = (...args) => this.archive.readRunPayloadSource(...args);
  readonly expireArchivedRun: ArchiveSystem['expireArchivedRun'] = (...args) => this.archive.expireArchivedRun(...args);

  // ---- the upstreams a run's writes depend on: the kill switch's per-run state (upstream-system.ts)
  readonly noteRunUpstream: UpstreamSystem['noteRunUpstream'] = (...args) => this.upstreams.noteRunUpstream(...args);
  readonly liveUpstreamsOf: UpstreamSystem['liveUpstreamsOf'] = (...args) => this.upstreams.liveUpstreamsOf(...args);
}

/** What the kill switch needs of the engine: the upstreams each run's writes depend on. */
export type RunUpstreams = Pick<RunEngine, 'noteRunUpstream' | 'liveUpstreamsOf'>;
