// The run waterfall's layout (waterfall.js draws it): a run's events (GET /v1/runs/:id/events,
// each stamped with `at`) as bars on one time axis — each model call (its time to first token and
// its generation, tokens, cost), each tool call (parallel calls of a turn on lanes of their own),
// each wait with its reason (a rate-limit or overload pause, the admission limiter, the backoff
// before a retried call, the user's answer) — with the phase changes and the run's ends as markers,
// and the critical path: the chain of bars, walked back from the end, that the run's length is
// made of. Pure: events in, offsets in ms from the run's first event out; typed by the fleet's own
// event catalog (src/domain/run-events.ts) so a renamed event or field does not compile here.
import type { RunEventName, RunEventUsage } from '../../src/domain/run-events.js';

/** One event as the API sends it: its name, step and time, and the fields its name declares. */
export interface WaterfallEvent {
  id: string;
  step: number;
  event: string;
  at: string;
  [field: string]: unknown;
}

export type WaterfallBarKind = 'model' | 'tool' | 'wait' | 'user';
export type WaterfallBarStatus = 'ok' | 'failed' | 'rejected' | 'running' | 'waiting';

export interface WaterfallBar {
  key: string;
  kind: WaterfallBarKind;
  step: number;
  /** What the bar is: `model call`, the tool's name, the wait's reason. */
  label: string;
  /** Offsets from the run's first event, ms. */
  startMs: number;
  endMs: number;
  /** Not ended in the events read (still going, or its end was lost): it reaches the layout's end. */
  open: boolean;
  status: WaterfallBarStatus;
  /** Tool calls: the lane among the calls of its turn that run at the same time (0 first); others 0. */
  lane: number;
  /** Tool calls: how many lanes the calls of its turn took (more than 1: they ran in parallel). */
  lanes: number;
  critical: boolean;
  /** Model calls: from the request to the first token, ms (absent when not reported). */
  firstTokenMs?: number;
  inputTokens?: number;
  outputTokens?: number;
  costUsd?: number;
  stopReason?: string | null;
  attempt?: number;
  /** Why it failed (a model call's status and error type, a tool's error code or refusal). */
  failure?: string;
  /** Waits: the pause's provider and rate-limit class; the user's wait: the question. */
  detail?: string;
  /** Tool calls: the tool's own duration as its end event reports it, its id, its retries, and
   * how long it sat in the tool queue before it started (offset where it was dispatched). */
  durationMs?: number;
  toolUseId?: string;
  retries?: number;
  queuedFromMs?: number;
}

export type WaterfallMarkerKind = 'phase' | 'run-end' | 'run-reopen';

export interface WaterfallMarker {
  key: string;
  kind: WaterfallMarkerKind;
  atMs: number;
  label: string;
}

export interface WaterfallLayout {
  /** The run's first event, epoch ms (null: no event with a time). */
  startedAt: number | null;
  /** The axis's length: the last event, or `nowMs` for a run still going. */
  totalMs: number;
  /** In the order they started. */
  bars: WaterfallBar[];
  markers: WaterfallMarker[];
  /** The critical path's bars, summed. */
  criticalMs: number;
}

// Compile-time check that every event name this module matches exists in the catalog.
const NAMES = {
  turnStart: 'turn-start',
  modelCallEnd: 'model-call-end',
  modelCallFail: 'model-call-fail',
  overloadWait: 'model-overload-wait',
  rateLimitWait: 'model-rate-limit-wait',
  admissionWait: 'model-admission-wait',
  inputWait: 'input-wait',
  inputReceive: 'input-receive',
  toolDispatch: 'tool-call-dispatch',
  toolStart: 'tool-call-start',
  toolRetry: 'tool-call-retry',
  toolEnd: 'tool-call-end',
  toolReject: 'tool-call-reject',
  phaseChange: 'phase-change',
  runEnd: 'run-end',
  runReopen: 'run-reopen',
} as const satisfies Record<string, RunEventName>;

/** Bars that end this close to where the walk stands still count as leading into it (the events'
 * times are written a few ms after what they describe). */
const CRITICAL_SLACK_MS = 25;

const numberOr = (value: unknown, fallback: number | null = null): number | null => (typeof value === 'number' && Number.isFinite(value) ? value : fallback);
const stringOf = (value: unknown): string | null => (typeof value === 'string' ? value : null);

/** Lays out a run's events; `nowMs` (epoch ms) stretches the open bars of a run still going. */
export function layoutWaterfall({ events, nowMs }: { events: readonly WaterfallEvent[]; nowMs?: number }): WaterfallLayout {
  const timed = events.map((event) => ({ event, atMs: Date.parse(event.at) })).filter((entry) => Number.isFinite(entry.atMs));
  if (timed.length === 0) return { startedAt: null, totalMs: 0, bars: [], markers: [], criticalMs: 0 };
  const startedAt = Math.min(...timed.map((entry) => entry.atMs));
  const builder = new BarBuilder();
  for (const { event, atMs } of timed) builder.add(event, atMs - startedAt);
  const lastMs = Math.max(...timed.map((entry) => entry.atMs)) - startedAt;
  const totalMs = Math.max(lastMs, nowMs === undefined ? 0 : nowMs - startedAt, ...builder.bars.map((bar) => bar.endMs));
  const bars = builder.finish(totalMs);
  assignToolLanes(bars);
  const criticalMs = markCriticalPath(bars, totalMs);
  return { startedAt, totalMs, bars, markers: builder.markers, criticalMs };
}

/** Pairs the events into bars as they come, oldest first. */
class BarBuilder {
  readonly bars: WaterfallBar[] = [];
  readonly markers: WaterfallMarker[] = [];
  /** The model call of each step still waiting for its end, and the last failed one (for its backoff). */
  private readonly openCalls = new Map<number, { bar: WaterfallBar; atMs: number }>();
  /** Calls the run's end closed, by step: a call the fleet then stops (model-call-fail, outcome
   * run_ended) reports on the same bar rather than a second one. */
  private readonly endedWithRun = new Map<number, { bar: WaterfallBar; atMs: number }>();
  private readonly backoffs = new Map<number, WaterfallBar>();
  private readonly tools = new Map<string, WaterfallBar>();
  private readonly dispatched = new Map<string, number>();
  private readonly questions = new Map<string, WaterfallBar>();
  /** Waits whose length is not known (an overload wait with no wait_ms): they end at the step's next call. */
  private readonly openWaits = new Map<number, WaterfallBar>();

  add(event: WaterfallEvent, atMs: number): void {
    switch (event.event) {
      case NAMES.turnStart:
        return this.startCall(event, atMs);
      case NAMES.modelCallEnd:
      case NAMES.modelCallFail:
        return this.endCall(event, atMs);
      case NAMES.overloadWait:
      case NAMES.rateLimitWait:
      case NAMES.admissionWait:
        return this.addWait(event, atMs);
      case NAMES.inputWait:
      case NAMES.inputReceive:
        return this.addQuestion(event, atMs);
      case NAMES.toolDispatch:
      case NAMES.toolStart:
      case NAMES.toolRetry:
      case NAMES.toolEnd:
      case NAMES.toolReject:
        return this.addTool(event, atMs);
      case NAMES.phaseChange:
        this.markers.push({ key: event.id, kind: 'phase', atMs, label: `${stringOf(event.from) ?? '?'} → ${stringOf(event.to) ?? '?'}` });
        return;
      case NAMES.runEnd:
        this.markers.push({ key: event.id, kind: 'run-end', atMs, label: `ended ${stringOf(event.status) ?? ''}`.trim() });
        return this.closeAllAt(atMs, stringOf(event.status) ?? 'ended');
      case NAMES.runReopen:
        this.markers.push({ key: event.id, kind: 'run-reopen', atMs, label: 'resumed' });
        return;
      default:
        return;
    }
  }

  /** The open bars reach `totalMs`; returns every bar in the order they started. */
  finish(totalMs: number): WaterfallBar[] {
    for (const bar of this.bars) if (bar.open) bar.endMs = Math.max(bar.startMs, totalMs);
    // A backoff that never waited (the failure ended the run) is no bar.
    const kept = this.bars.filter((bar) => !(bar.kind === 'wait' && bar.key.endsWith(':backoff') && bar.endMs === bar.startMs));
    return kept.sort((first, second) => first.startMs - second.startMs || kindOrder(first.kind) - kindOrder(second.kind));
  }

  private push(bar: Omit<WaterfallBar, 'lane' | 'lanes' | 'critical'>): WaterfallBar {
    const full: WaterfallBar = { ...bar, lane: 0, lanes: 1, critical: false };
    this.bars.push(full);
    return full;
  }

  private startCall(event: WaterfallEvent, atMs: number): void {
    this.closeWaitsOf(event.step, atMs);
    const backoff = this.backoffs.get(event.step);
    if (backoff) {
      backoff.endMs = Math.max(backoff.startMs, atMs);
      backoff.open = false;
      this.backoffs.delete(event.step);
    }
    const bar = this.push({ key: event.id, kind: 'model', step: event.step, label: 'model call', startMs: atMs, endMs: atMs, open: true, status: 'running' });
    const attempt = numberOr(event.attempt);
    if (attempt !== null) bar.attempt = attempt;
    this.openCalls.set(event.step, { bar, atMs });
    this.endedWithRun.delete(event.step);
  }

  private endCall(event: WaterfallEvent, atMs: number): void {
    const reported = numberOr(event.duration_ms);
    const open = this.openCalls.get(event.step) ?? this.endedWithRun.get(event.step);
    this.openCalls.delete(event.step);
    this.endedWithRun.delete(event.step);
    // An end without its turn-start (an answer another attempt stored): it began `duration_ms` before.
    const bar =
      open?.bar ??
      this.push({
        key: event.id,
        kind: 'model',
        step: event.step,
        label: 'model call',
        startMs: Math.max(0, atMs - (reported ?? 0)),
        endMs: atMs,
        open: true,
        status: 'running',
      });
    bar.open = false;
    bar.endMs = reported === null ? atMs : Math.min(atMs, bar.startMs + reported);
    const usage = event.usage as Partial<RunEventUsage> | undefined;
    if (usage && typeof usage === 'object') {
      bar.inputTokens =
        (usage.input_tokens ?? 0) + (usage.cache_write_5m_input_tokens ?? 0) + (usage.cache_write_1h_input_tokens ?? 0) + (usage.cache_read_input_tokens ?? 0);
      bar.outputTokens = usage.output_tokens ?? 0;
    }
    const cost = numberOr(event.cost_usd);
    if (cost !== null) bar.costUsd = cost;
    if (event.event === NAMES.modelCallEnd) {
      bar.status = 'ok';
      bar.stopReason = stringOf(event.stop_reason);
      const firstToken = numberOr(event.first_token_ms);
      if (firstToken !== null) bar.firstTokenMs = Math.min(firstToken, bar.endMs - bar.startMs);
      return;
    }
    bar.status = 'failed';
    bar.failure = [event.status, event.error_type, event.outcome].filter((part) => part !== null && part !== undefined).join(' ');
    const attempt = numberOr(event.attempt);
    if (attempt !== null) bar.attempt = attempt;
    // Until the step's next call: the queue's backoff, unless a wait event says what it was.
    if (event.outcome !== 'fatal' && event.outcome !== 'spend_cap' && event.outcome !== 'run_ended') {
      const backoff = this.push({
        key: `${event.id}:backoff`,
        kind: 'wait',
        step: event.step,
        label: `retry backoff (${String(event.outcome)})`,
        startMs: atMs,
        endMs: atMs,
        open: true,
        status: 'waiting',
      });
      this.backoffs.set(event.step, backoff);
    }
  }

  private addWait(event: WaterfallEvent, atMs: number): void {
    // The wait says why the failed call's retry waits: it replaces the generic backoff.
    const backoff = this.backoffs.get(event.step);
    if (backoff) {
      this.bars.splice(this.bars.indexOf(backoff), 1);
      this.backoffs.delete(event.step);
    }
    const reason =
      event.event === NAMES.rateLimitWait
        ? `rate-limit wait${event.backoff ? ' (backoff)' : ''}`
        : event.event === NAMES.overloadWait
          ? 'overload wait'
          : `admission wait (${stringOf(event.limit) ?? 'capacity'})`;
    const waitMs = numberOr(event.wait_ms);
    const bar = this.push({
      key: event.id,
      kind: 'wait',
      step: event.step,
      label: reason,
      startMs: atMs,
      endMs: atMs + (waitMs ?? 0),
      open: waitMs === null,
      status: 'waiting',
    });
    if (stringOf(event.provider) && stringOf(event.rate_limit_class)) bar.detail = `${String(event.provider)} / ${String(event.rate_limit_class)}`;
    if (waitMs === null) this.openWaits.set(event.step, bar);
  }

  /** The run ended: what was still going ended with it (a resume starts new bars). */
  private closeAllAt(atMs: number, status: string): void {
    for (const bar of this.bars) {
      if (!bar.open) continue;
      bar.open = false;
      bar.endMs = Math.max(bar.startMs, atMs);
      if (bar.status === 'running') {
        bar.status = 'failed';
        bar.failure = `the run ended (${status})`;
      }
    }
    for (const [step, call] of this.openCalls) this.endedWithRun.set(step, call);
    this.openCalls.clear();
    this.backoffs.clear();
    this.openWaits.clear();
    this.questions.clear();
    this.tools.clear();
  }

  private closeWaitsOf(step: number, atMs: number): void {
    const wait = this.openWaits.get(step);
    if (!wait) return;
    wait.endMs = Math.max(wait.startMs, atMs);
    wait.open = false;
    this.openWaits.delete(step);
  }

  private addQuestion(event: WaterfallEvent, atMs: number): void {
    const id = stringOf(event.tool_use_id) ?? event.id;
    if (event.event === NAMES.inputWait) {
      const question = stringOf(event.question);
      const bar = this.push({
        key: event.id,
        kind: 'user',
        step: event.step,
        label: "waiting for the user's answer",
        startMs: atMs,
        endMs: atMs,
        open: true,
        status: 'waiting',
      });
      bar.toolUseId = id;
      if (question) bar.detail = question;
      this.questions.set(id, bar);
      return;
    }
    const bar = this.questions.get(id);
    if (!bar) return;
    bar.endMs = Math.max(bar.startMs, atMs);
    bar.open = false;
    bar.status = 'ok';
    this.questions.delete(id);
  }

  private addTool(event: WaterfallEvent, atMs: number): void {
    const id = stringOf(event.tool_use_id);
    if (!id) return;
    if (event.event === NAMES.toolDispatch) {
      this.dispatched.set(id, atMs);
      return;
    }
    let bar = this.tools.get(id);
    if (!bar) {
      bar = this.push({
        key: event.id,
        kind: 'tool',
        step: event.step,
        label: stringOf(event.tool) ?? 'tool',
        startMs: atMs,
        endMs: atMs,
        open: true,
        status: 'running',
      });
      bar.toolUseId = id;
      bar.retries = 0;
      const queuedFrom = this.dispatched.get(id);
      if (queuedFrom !== undefined && queuedFrom < atMs) bar.queuedFromMs = queuedFrom;
      this.tools.set(id, bar);
    }
    switch (event.event) {
      case NAMES.toolRetry:
        bar.retries = (bar.retries ?? 0) + 1;
        return;
      case NAMES.toolReject:
        bar.open = false;
        bar.status = 'rejected';
        bar.failure = stringOf(event.reason) ?? 'refused';
        bar.endMs = atMs;
        return;
      case NAMES.toolEnd: {
        bar.open = false;
        bar.endMs = Math.max(bar.startMs, atMs);
        bar.status = event.ok === false ? 'failed' : 'ok';
        const duration = numberOr(event.duration_ms);
        if (duration !== null) bar.durationMs = duration;
        const failure = stringOf(event.error_code) ?? stringOf(event.reason);
        if (event.ok === false && failure) bar.failure = failure;
        return;
      }
      default: {
        const attempt = numberOr(event.attempt);
        if (attempt !== null) bar.attempt = attempt;
      }
    }
  }
}

function kindOrder(kind: WaterfallBarKind): number {
  return ['model', 'wait', 'tool', 'user'].indexOf(kind);
}

/** The tool calls of each step on lanes: a call takes the first lane free when it starts. */
export function assignToolLanes(bars: WaterfallBar[]): void {
  const byStep = new Map<number, WaterfallBar[]>();
  for (const bar of bars) {
    if (bar.kind !== 'tool') continue;
    byStep.set(bar.step, [...(byStep.get(bar.step) ?? []), bar]);
  }
  for (const calls of byStep.values()) {
    const laneEnds: number[] = [];
    for (const call of [...calls].sort((first, second) => first.startMs - second.startMs)) {
      const free = laneEnds.findIndex((end) => end <= call.startMs);
      const lane = free === -1 ? laneEnds.length : free;
      laneEnds[lane] = call.endMs;
      call.lane = lane;
    }
    for (const call of calls) call.lanes = laneEnds.length;
  }
}

/**
 * Marks the critical path: from the end of the axis, the bar that ends last before where the walk
 * stands (of parallel calls, the one the turn waited for), then the one before its start, and so
 * on. Gaps between bars (the queues, the engine's own work) are not bars and stay unmarked.
 * Returns the marked bars' total length.
 */
export function markCriticalPath(bars: WaterfallBar[], totalMs: number): number {
  let cursor = totalMs + CRITICAL_SLACK_MS;
  let sum = 0;
  const candidates = bars.filter((bar) => bar.endMs > bar.startMs);
  for (;;) {
    let best: WaterfallBar | null = null;
    for (const bar of candidates) {
      if (bar.critical || bar.endMs > cursor || bar.startMs >= cursor) continue;
      if (!best || bar.endMs > best.endMs || (bar.endMs === best.endMs && bar.startMs < best.startMs)) best = bar;
    }
    if (!best) return sum;
    best.critical = true;
    sum += best.endMs - best.startMs;
    cursor = best.startMs + CRITICAL_SLACK_MS;
  }
}
