// The reaper: finds runs that have not ended but have no live job — after a crash, a lost flow
// (Redis restarted from an AOF a second behind), a bug, jobs deleted behind the fleet's back — and
// resumes them or ends them. Every model worker process runs one; a Redis lock lets one sweep at
// a time. Each sweep walks the engine's live-run index (runs that have not ended) and judges only
// runs that made no transition for BUILDFLEET_REAPER_GRACE_MS (so the moments between a step and
// the job it enqueues are never mistaken for a loss) and are neither parked for input nor held by
// a paused queue. For those it reads the turn (RunEngine.inspectTurn), the states of the jobs that
// should carry it, and lets decideStalledRun say what to do; every action is an engine transition
// that holds only if the run is still as it was seen (RunEngine.resumeTurn, endRunIfUnchanged), so
// a run that moved on meanwhile is left alone, and only then are jobs added, with deterministic ids.
//
// Bounds (docs/run-states.md, "Runs with no live job"): a run whose last live job is lost is first
// resumed or ended within BUILDFLEET_REAPER_GRACE_MS + 2 × BUILDFLEET_REAPER_INTERVAL_MS; every
// resume stamps the run's transition time, so a run whose new jobs keep being lost ends run_stalled
// within (BUILDFLEET_REAPER_MAX_RECOVERIES + 1) × that.
import type { Logger } from 'pino';
import type { RunEngine, TurnInspection } from '../engine/index.js';
import type { FleetQueues } from '../jobs/fleet-queues.js';
import type { QueueShards } from '../jobs/queue-shards.js';
import { jobIds, QUEUE_NAMES, toolJobOf, type ModelJobData } from '../jobs/job-catalog.js';
import { assertNever } from '../domain/assert-never.js';
import { isTerminal } from '../domain/run-outcomes.js';
import { decideStalledRun, isLiveJobState, type ObservedJobState, type StalledRunDecision } from './decide-stalled-run.js';
import { ReaperLock } from './reaper-lock.js';
import { LockedSweep } from './locked-sweep.js';

export interface RunReaperSettings {
  /** How often this process offers to sweep (ms). */
  intervalMs: number;
  /** How long a run must have made no transition before it is judged (ms). */
  graceMs: number;
  /** Recoveries of one turn before the run ends with run_stalled. */
  maxRecoveries: number;
  /** Runs read per round trip. */
  pageSize?: number;
}

export interface RunReaperContext {
  store: RunEngine;
  /** Every shard's queues: each run's jobs are looked up and enqueued in its own shard. */
  queues: QueueShards;
  logger: Logger;
}

/** What one sweep did, for the log and tests. */
export interface SweepReport {
  skipped: 'paused' | 'locked' | null;
  examined: number;
  resumed: string[];
  ended: string[];
  forgotten: number;
}

const emptyReport = (skipped: SweepReport['skipped']): SweepReport => ({ skipped, examined: 0, resumed: [], ended: [], forgotten: 0 });

export class RunReaper {
  private readonly lock: ReaperLock;
  private readonly loop: LockedSweep<SweepReport>;

  constructor(
    private readonly context: RunReaperContext,
    private readonly settings: RunReaperSettings,
  ) {
    // Long enough for a sweep of many pages (it is extended after each), short enough that a
    // process that died holding it delays the next sweep by at most two intervals.
    this.lock = new ReaperLock(context.store.redis, context.store.keys.reaperLock(), Math.max(2 * settings.intervalMs, 1000));
    this.loop = new LockedSweep<SweepReport>({
      lock: this.lock,
      intervalMs: settings.intervalMs,
      sweep: (now) => this.sweep(now),
      whenLocked: () => emptyReport('locked'),
      onError: (error) => this.context.logger.error({ err: error instanceof Error ? error.message : String(error) }, 'reaper sweep failed'),
    });
  }

  start(): void {
    this.loop.start();
  }

  /** Stops sweeping; resolves once a sweep in progress has finished. */
  stop(): Promise<void> {
    return this.loop.stop();
  }

  /** One sweep, if this process gets the lock. */
  sweepLocked(now = Date.now()): Promise<SweepReport> {
    return this.loop.sweepLocked(now);
  }

  /** One sweep over every run that has not ended (the caller holds the lock). */
  async sweep(now = Date.now()): Promise<SweepReport> {
    const { store, queues } = this.context;
    // A paused queue holds every job where it is: nothing is lost, and nothing would move if resumed.
    if ((await Promise.all(queues.all().map((shard) => shard.anyPaused()))).some(Boolean)) return emptyReport('paused');
    const report = emptyReport(null);
    let cursor = '0';
    do {
      const page = await store.scanLiveRuns(cursor, this.settings.pageSize ?? 200);
      cursor = page.cursor;
      const readings = await store.runProgress(page.runIds);
      const forget: string[] = [];
      const ended: string[] = [];
      const stale: Array<{ runId: string; turn: number; queues: FleetQueues }> = [];
      for (const [index, runId] of page.runIds.entries()) {
        const reading = readings[index]!;
        if (reading.state === 'missing') forget.push(runId);
        else if (reading.state === 'invalid')
          this.context.logger.warn({ run_id: runId, err: reading.error.message }, 'reaper skips a run whose record does not decode');
        else if (isTerminal(reading.value.status)) ended.push(runId);
        else if (reading.value.status !== 'waiting_for_input' && this.isStale(reading.value.updatedAt, now))
          stale.push({ runId, turn: reading.value.turn, queues: queues.of(reading.value.queueShard) });
      }
      // A page's runs are judged side by side: their commands share the connection's pipeline.
      report.examined += stale.length;
      await Promise.all(
        stale.map(({ runId, turn, queues: runQueues }) =>
          this.examine(runId, turn, runQueues, now, report).catch((error: unknown) =>
            this.context.logger.error({ run_id: runId, err: error instanceof Error ? error.message : String(error) }, 'reaper could not judge a run'),
          ),
        ),
      );
      await store.forgetLiveRuns(forget);
      // An ended run still here missed its end's bookkeeping (its process died in between): it goes
      // to the archive's work list, never just dropped (docs/history.md#every-finished-run-is-archived).
      await store.handOffEndedRuns(ended);
      report.forgotten += forget.length + ended.length;
      // Should the lock have expired meanwhile, two sweeps may overlap: harmless, since every action
      // holds only for the run as it was seen (and a second resume of the same view is refused).
      await this.lock.extend();
    } while (cursor !== '0');
    return report;
  }

  private isStale(updatedAt: string, now: number): boolean {
    const at = Date.parse(updatedAt);
    // A record without a readable transition time is judged: the job states decide, not the clock.
    return !Number.isFinite(at) || now - at >= this.settings.graceMs;
  }

  private async examine(runId: string, turn: number, queues: FleetQueues, now: number, report: SweepReport): Promise<void> {
    const { store } = this.context;
    // The common case first, in one round trip: the turn's own job waits its turn or runs (a long
    // queue, a long call). Only a run without one is read in full.
    const ownState = (await queues.jobState(QUEUE_NAMES.model, jobIds.modelTurn(runId, turn))) as ObservedJobState;
    if (isLiveJobState(ownState) && ownState !== 'waiting-children') return;
    const inspection = await store.inspectTurn(runId, turn);
    if (inspection === 'moved' || inspection === 'missing') return;
    if (inspection.status === 'waiting_for_input' || !this.isStale(inspection.updatedAt, now)) return;
    const decision = decideStalledRun(await this.observe(runId, inspection, queues));
    await this.act(runId, inspection, decision, queues, report);
  }

  /** The states of every job that may carry the turn, and of the previous turn's tool jobs. */
  private async observe(runId: string, inspection: TurnInspection, queues: FleetQueues) {
    const { turn } = inspection;
    const ownJobId = jobIds.modelTurn(runId, turn);
    const askUser = inspection.calls.find(({ call }) => call.name === 'ask_user');
    const candidates = [
      ownJobId,
      ...(askUser ? [jobIds.modelResume(runId, turn, askUser.call.toolUseId)] : []),
      ...(inspection.claimedBy ? [inspection.claimedBy] : []),
      ...Array.from({ length: inspection.recoveries }, (_, index) => jobIds.modelRecovery(runId, turn, index + 1)),
    ];
    const modelJobs = await Promise.all(
      [...new Set(candidates)].map(async (jobId) => ({ jobId, state: (await queues.jobState(QUEUE_NAMES.model, jobId)) as ObservedJobState })),
    );
    const tools = await Promise.all(
      inspection.calls
        .filter(({ call }) => call.name !== 'ask_user')
        .map(async ({ call, recorded }) => ({
          call,
          recorded,
          state: (await queues.jobState(QUEUE_NAMES.tool, jobIds.tool(runId, call.toolUseId))) as ObservedJobState,
        })),
    );
    return {
      modelJobs,
      ownJobId,
      nextRecoveryJobId: jobIds.modelRecovery(runId, turn, inspection.recoveries + 1),
      tools,
      recoveries: inspection.recoveries,
      maxRecoveries: this.settings.maxRecoveries,
    };
  }

  private async act(runId: string, inspection: TurnInspection, decision: StalledRunDecision, queues: FleetQueues, report: SweepReport): Promise<void> {
    const { store } = this.context;
    const seen = { turn: inspection.turn, updatedAt: inspection.updatedAt, recoveries: inspection.recoveries };
    const next: ModelJobData = { runId, turn: inspection.turn, trace: inspection.traceContext };
    switch (decision.kind) {
      case 'alive':
        return;
      case 'add_children': {
        const resumed = await store.resumeTurn(runId, seen, {
          jobId: decision.parentJobId,
          reason: 'tool_job_missing',
          detail: { tool_use_ids: decision.calls.map((call) => call.toolUseId) },
        });
        if (resumed !== 'resumed') return;
        await queues.addToolJobsToParent(
          decision.parentJobId,
          decision.calls.map((call) => toolJobOf(call, inspection.traceContext)),
        );
        report.resumed.push(runId);
        return;
      }
      case 'resume': {
        const resumed = await store.resumeTurn(runId, seen, {
          jobId: decision.jobId,
          reason: decision.reason,
          detail: { tool_use_ids: decision.calls.map((call) => call.toolUseId) },
        });
        if (resumed !== 'resumed') return;
        if (decision.calls.length > 0) {
          await queues.enqueueToolFanOut(
            next,
            decision.calls.map((call) => toolJobOf(call, inspection.traceContext)),
            { parentJobId: decision.jobId },
          );
        } else {
          await queues.enqueueTurn(next, decision.jobId);
        }
        report.resumed.push(runId);
        return;
      }
      case 'end': {
        const error =
          decision.code === 'job_attempts_exhausted'
            ? {
                code: decision.code,
                message:
                  `The model job ${decision.failedJobId} of turn ${inspection.turn} failed for good ` +
                  `(${(await queues.failedReason(QUEUE_NAMES.model, decision.failedJobId)) ?? 'no reason recorded'}); the run cannot go on.`,
              }
            : {
                code: decision.code,
                message: `Turn ${inspection.turn} had no live job after ${inspection.recoveries} recoveries by the reaper; the run cannot go on.`,
              };
        const ended = await store.endRunIfUnchanged(runId, seen, error, [
          { event: 'run-stall', level: 'warn', recoveries: inspection.recoveries, code: decision.code },
        ]);
        if (ended === 'ended') report.ended.push(runId);
        return;
      }
      default:
        assertNever(decision);
    }
  }
}
