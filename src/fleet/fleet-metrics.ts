// Prometheus metrics of one fleet process (prom-client). The turn and tool hooks feed the
// counters; queue depths are read from Redis when Prometheus scrapes. Names: metric-names.ts.
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { ModelTurnHooks } from '../agent/run-model-turn.js';
import type { AdmissionObservation } from '../model/model-rate-limiter.js';
import type { ModelsApiCheckObserver } from '../model/models-api-check.js';
import type { RunEngine } from '../engine/index.js';
import type { ToolJobHooks } from '../tools/run-tool-job.js';
import type { QueueShards } from '../jobs/queue-shards.js';
import { METRICS } from '../telemetry/metric-names.js';
import { USAGE_CLASSES } from '../domain/usage.js';
import { microUsdToUsd } from '../domain/usage-cost.js';
import { reasonCodeOf } from '../tools/output/tool-output-invalid.js';
import { killSwitchGaugeValue } from '../safety/kill-switch-mode.js';
import { KILL_SWITCH_SCOPE_KINDS } from '../safety/kill-switch-scope.js';
import type { KillSwitchScopeSource } from '../safety/safety-hooks.js';
import { EVENT_LOOP_DELAY_BUCKETS, observeEventLoopDelay } from '../telemetry/event-loop-delay-sampler.js';

const QUEUE_STATES = ['wait', 'active', 'delayed', 'prioritized', 'waiting-children', 'failed', 'completed'] as const;

export class FleetMetrics {
  readonly registry = new Registry();
  readonly turns: Counter<'stop_reason' | 'tool_count' | 'agent'>;
  readonly turnsExpectingTool: Counter<'tool_count' | 'agent'>;
  readonly turnsWithToolUse: Counter<'tool_count' | 'agent'>;
  readonly jsonInText: Counter<'tool_count'>;
  readonly fenceOnlyStops: Counter<'tool_count'>;
  readonly recoveries: Counter<'tool_count' | 'parse_mode'>;
  readonly toolCalls: Counter<'tool' | 'parse_mode' | 'status'>;
  readonly toolDuration: Histogram<'tool'>;
  readonly toolOutputInvalid: Counter<'tool' | 'reason'>;
  readonly injectionFlagged: Counter<'tool'>;
  readonly killSwitchState: Gauge;
  readonly killSwitchScopes: Gauge<'scope' | 'mode'>;
  readonly killSwitchTrips: Counter<'scope' | 'cause'>;
  /** Read at scrape time for the kill switch scopes gauge (a tool worker's switch hands it over). */
  killSwitchScopeSource: KillSwitchScopeSource | null = null;
  readonly writesRefused: Counter<'tool' | 'reason'>;
  readonly modelDuration: Histogram<'outcome'>;
  readonly modelRetries: Counter<'class'>;
  readonly tokens: Counter<'direction'>;
  readonly modelTokens: Counter<'tenant' | 'model' | 'class'>;
  readonly modelCost: Counter<'tenant' | 'model'>;
  readonly admissionWaits: Counter<'model' | 'priority' | 'limit'>;
  readonly admissionWaitDuration: Histogram<'priority'>;
  readonly admissionReservedTokens: Counter<'model' | 'direction'>;
  readonly admissionReturnedTokens: Counter<'model' | 'direction'>;
  readonly admissionAvailable: Gauge<'provider' | 'model' | 'limit'>;
  readonly toolsPerRequest: Histogram;
  readonly modelCatalogDisagreements: Gauge<'model' | 'field'>;
  readonly modelsApiChecks: Counter<'outcome'>;
  readonly queueJobs: Gauge<'queue' | 'state'>;
  readonly queueWorkers: Gauge<'queue' | 'shard'>;
  readonly jobDuration: Histogram<'queue'>;
  readonly workerConcurrency: Gauge<'queue'>;
  readonly runsEnded: Counter<'status' | 'error_code' | 'agent'>;
  readonly deprecatedModelRuns: Counter<'model'>;
  readonly httpRequests: Counter<'route' | 'status_code'>;
  readonly eventLoopDelay: Histogram | null = null;
  /** Stops feeding eventLoopDelay. */
  readonly stopEventLoopDelay: () => void = () => undefined;
  /** Read at scrape time for the queue depth gauge. */
  queues: QueueShards | null;

  constructor(input: { role: string; queues?: QueueShards; defaultMetrics?: boolean }) {
    const registers = [this.registry];
    this.registry.setDefaultLabels({ role: input.role });
    if (input.defaultMetrics !== false) {
      collectDefaultMetrics({ register: this.registry, prefix: 'buildfleet_process_' });
      this.eventLoopDelay = new Histogram({
        name: METRICS.eventLoopDelay,
        help: 'Event-loop delay: how late a 10 ms timer fires',
        buckets: EVENT_LOOP_DELAY_BUCKETS,
        registers,
      });
      this.stopEventLoopDelay = observeEventLoopDelay(this.eventLoopDelay);
    }
    const counter = <Label extends string>(name: string, help: string, labelNames: Label[] = []) => new Counter<Label>({ name, help, labelNames, registers });
    // `agent`: the run's (src/agents), so tool_use_rate reads per agent as well as per tool count.
    this.turns = counter(METRICS.turns, 'Model turns by stop reason, tools in the request and agent', ['stop_reason', 'tool_count', 'agent']);
    this.turnsExpectingTool = counter(METRICS.turnsExpectingTool, 'Turns where the runtime expected a tool call', ['tool_count', 'agent']);
    this.turnsWithToolUse = counter(METRICS.turnsWithToolUse, 'Turns expecting a tool call that ended in a native tool_use', ['tool_count', 'agent']);
    this.jsonInText = counter(METRICS.jsonInText, 'Turns whose text held a tool call written as text', ['tool_count']);
    this.fenceOnlyStops = counter(METRICS.fenceOnlyStops, 'Turns that stopped inside an open code fence', ['tool_count']);
    this.recoveries = counter(METRICS.recoveries, 'Tool calls recovered from text', ['tool_count', 'parse_mode']);
    this.toolCalls = counter(METRICS.toolCalls, 'Tool calls by tool, parse mode and result status', ['tool', 'parse_mode', 'status']);
    this.toolDuration = new Histogram({
      name: METRICS.toolDuration,
      help: 'Tool execution time',
      labelNames: ['tool'],
      buckets: [0.001, 0.005, 0.02, 0.1, 0.5, 1, 5, 15, 60],
      registers,
    });
    this.toolOutputInvalid = counter(METRICS.toolOutputInvalid, 'Tool outputs that failed validation', ['tool', 'reason']);
    this.injectionFlagged = counter(METRICS.toolOutputInjectionFlagged, 'Tool outputs flagged as possible prompt injection', ['tool']);
    this.workerConcurrency = new Gauge({
      name: METRICS.workerConcurrency,
      help: 'Jobs the worker process takes at once now (governed by its event-loop delay)',
      labelNames: ['queue'],
      registers,
    });
    this.killSwitchState = new Gauge({ name: METRICS.killSwitchState, help: 'Kill switch, fleet scope: 0 read_write, 1 half_open, 2 read_only', registers });
    this.killSwitchTrips = counter(METRICS.killSwitchTrips, 'Automatic kill switch trips by scope kind and cause', ['scope', 'cause']);
    const scopesOwner = this;
    this.killSwitchScopes = new Gauge({
      name: METRICS.killSwitchScopes,
      help: 'Kill switch scopes tripped now, by kind and mode (read at scrape time)',
      labelNames: ['scope', 'mode'],
      registers,
      async collect() {
        const source = scopesOwner.killSwitchScopeSource;
        if (!source) return;
        // A failed read keeps the last values rather than failing the whole scrape.
        const counts = await source.countScopes().catch(() => null);
        if (!counts) return;
        // Every kind and mode is set, so a reset scope reads 0 instead of its last value.
        for (const scope of KILL_SWITCH_SCOPE_KINDS) for (const mode of ['read_only', 'half_open'] as const) this.set({ scope, mode }, 0);
        for (const { scope, mode, count } of counts) this.set({ scope, mode }, count);
      },
    });
    this.writesRefused = counter(METRICS.writesRefused, 'Write tool calls refused', ['tool', 'reason']);
    this.modelDuration = new Histogram({
      name: METRICS.modelRequestDuration,
      help: 'Model request duration',
      labelNames: ['outcome'],
      buckets: [0.005, 0.02, 0.1, 0.5, 1, 2, 5, 10, 30, 60],
      registers,
    });
    this.modelRetries = counter(METRICS.modelRetries, 'Failed model calls by retry class', ['class']);
    this.tokens = counter(METRICS.tokens, 'Tokens in and out', ['direction']);
    this.modelTokens = counter(METRICS.modelTokens, 'Model tokens by usage class (uncached input, cache writes by lifetime, cache reads, output)', [
      'tenant',
      'model',
      'class',
    ]);
    this.modelCost = counter(METRICS.modelCost, 'What model answers cost, in USD (price table × usage)', ['tenant', 'model']);
    this.toolsPerRequest = new Histogram({
      name: METRICS.toolsPerRequest,
      help: 'Tools in each model request',
      buckets: [1, 5, 11, 13, 20, 25, 30, 40, 47, 64],
      registers,
    });
    this.jobDuration = new Histogram({
      name: METRICS.jobDuration,
      help: 'Job processing time',
      labelNames: ['queue'],
      buckets: [0.005, 0.02, 0.1, 0.5, 1, 5, 15, 60],
      registers,
    });
    this.runsEnded = counter(METRICS.runsEnded, 'Runs that reached a terminal state', ['status', 'error_code', 'agent']);
    this.deprecatedModelRuns = counter(METRICS.deprecatedModelRuns, 'Runs created on a deprecated model', ['model']);
    this.httpRequests = counter(METRICS.httpRequests, 'API requests by route and status', ['route', 'status_code']);
    this.admissionWaits = counter(METRICS.admissionWaits, 'Model calls told to wait by the admission limiter', ['model', 'priority', 'limit']);
    this.admissionWaitDuration = new Histogram({
      name: METRICS.admissionWaitDuration,
      help: 'How long the admission limiter told a call to wait',
      labelNames: ['priority'],
      buckets: [0.01, 0.05, 0.2, 0.5, 1, 2, 5, 10, 30, 60],
      registers,
    });
    this.admissionReservedTokens = counter(METRICS.admissionReservedTokens, 'Tokens reserved by the admission limiter for admitted calls', [
      'model',
      'direction',
    ]);
    this.admissionReturnedTokens = counter(METRICS.admissionReturnedTokens, 'Reserved tokens given back when calls settled', ['model', 'direction']);
    this.admissionAvailable = new Gauge({
      name: METRICS.admissionAvailable,
      help: 'What the admission limiter bucket holds now',
      labelNames: ['provider', 'model', 'limit'],
      registers,
    });
    this.modelCatalogDisagreements = new Gauge({
      name: METRICS.modelCatalogDisagreements,
      help: 'Fields on which the model catalog and the provider Models API disagree (last check)',
      labelNames: ['model', 'field'],
      registers,
    });
    this.modelsApiChecks = counter(METRICS.modelsApiChecks, 'Checks of the model catalog against the provider Models API', ['outcome']);
    this.queues = input.queues ?? null;
    const metrics = this;
    this.queueJobs = new Gauge({
      name: METRICS.queueJobs,
      help: 'Jobs per queue and state (read at scrape time)',
      labelNames: ['queue', 'state'],
      registers,
      async collect() {
        if (!metrics.queues) return;
        // Added up over the shards: a shard is where jobs wait, not what they are.
        const shards = await Promise.all(
          metrics.queues.all().map((shard) => Promise.all([shard.model, shard.tool].map((queue) => queue.getJobCounts(...QUEUE_STATES)))),
        );
        for (const [index, name] of [metrics.queues.own.model.name, metrics.queues.own.tool.name].entries()) {
          for (const state of QUEUE_STATES)
            this.set(
              { queue: name, state },
              shards.reduce((sum, counts) => sum + (counts[index]![state] ?? 0), 0),
            );
        }
      },
    });
    // Per shard: a shard whose queue has jobs and no worker (its workers not deployed, or every
    // process bound to another shard) holds its runs for ever; this is what an alert watches.
    this.queueWorkers = new Gauge({
      name: METRICS.queueWorkers,
      help: 'Workers connected to each queue of each queue shard (read at scrape time)',
      labelNames: ['queue', 'shard'],
      registers,
      async collect() {
        if (!metrics.queues) return;
        const shards = metrics.queues.all();
        const counts = await Promise.all(shards.map((shard) => Promise.all([shard.model, shard.tool].map((queue) => queue.getWorkersCount()))));
        counts.forEach(([model, tool], shard) => {
          this.set({ queue: 'model', shard: String(shard) }, model ?? 0);
          this.set({ queue: 'tool', shard: String(shard) }, tool ?? 0);
        });
      },
    });
  }

  modelTurnHooks(): ModelTurnHooks {
    return {
      onModelCall: ({ run, toolCount, durationMs, response, paidUsage, costMicroUsd, outcome }) => {
        this.toolsPerRequest.observe(toolCount);
        this.modelDuration.observe({ outcome: outcome ? outcome.kind : 'ok' }, durationMs / 1000);
        // A call stopped because its run ended is no failure to retry.
        if (outcome && outcome.kind !== 'run_ended') this.modelRetries.inc({ class: outcome.kind });
        // An answer's usage, or what a call that broke mid-stream had cost: both were paid for.
        const usage = response?.usage ?? paidUsage;
        if (usage) {
          this.tokens.inc({ direction: 'input' }, usage.input_tokens);
          this.tokens.inc({ direction: 'output' }, usage.output_tokens);
          // Per tenant and model: the run's model (the price the cost was taken at), not the
          // snapshot id the API reports, so the label set stays the configured models.
          const labels = { tenant: run.tenant, model: run.model };
          for (const usageClass of USAGE_CLASSES) this.modelTokens.inc({ ...labels, class: usageClass }, usage[usageClass]);
          this.modelCost.inc(labels, microUsdToUsd(costMicroUsd ?? 0));
        }
      },
      onDecision: ({ run, response, toolCount, expectedTool, events }) => {
        const tool_count = String(toolCount);
        const { agent } = run;
        this.turns.inc({ stop_reason: response.stop_reason ?? 'null', tool_count, agent });
        if (expectedTool) {
          this.turnsExpectingTool.inc({ tool_count, agent });
          if (response.stop_reason === 'tool_use') this.turnsWithToolUse.inc({ tool_count, agent });
        }
        for (const event of events) {
          if (event.event === 'text-call-detect') this.jsonInText.inc({ tool_count });
          if (event.event === 'fence-only-stop') this.fenceOnlyStops.inc({ tool_count });
          if (event.event === 'tool-call-recover') this.recoveries.inc({ tool_count, parse_mode: String(event.parse_mode) });
        }
      },
      onAdmission: (observation) => this.observeAdmission(observation),
    };
  }

  /** The catalog check's observer (src/model/models-api-check.ts): each check counted, and the
   * gauge holding exactly the last completed check's disagreements. */
  modelsApiCheckObserver(): ModelsApiCheckObserver {
    return {
      onCheck: (outcome) => this.modelsApiChecks.inc({ outcome }),
      onDisagreements: (disagreements) => {
        this.modelCatalogDisagreements.reset();
        for (const { model, field } of disagreements) this.modelCatalogDisagreements.set({ model, field }, 1);
      },
    };
  }

  /** The admission limiter's reserves and settles (src/model/model-rate-limiter.ts). */
  private observeAdmission(observation: AdmissionObservation): void {
    const { provider, model } = observation;
    const buckets = observation.kind === 'reserve' ? observation.decision.buckets : observation.settlement.buckets;
    for (const [limit, bucket] of [
      ['requests', buckets.requests],
      ['input_tokens', buckets.inputTokens],
      ['output_tokens', buckets.outputTokens],
    ] as const) {
      // One bucket per provider and model: two providers serving one model id are two gauges.
      if (bucket.capacity > 0) this.admissionAvailable.set({ provider, model, limit }, bucket.available);
    }
    if (observation.kind === 'settle') {
      const { returned } = observation.settlement;
      if (returned.inputTokens > 0) this.admissionReturnedTokens.inc({ model, direction: 'input' }, returned.inputTokens);
      if (returned.outputTokens > 0) this.admissionReturnedTokens.inc({ model, direction: 'output' }, returned.outputTokens);
      return;
    }
    const { decision, priority } = observation;
    if (decision.kind === 'wait') {
      this.admissionWaits.inc({ model, priority, limit: decision.limit });
      this.admissionWaitDuration.observe({ priority }, decision.waitMs / 1000);
      return;
    }
    this.admissionReservedTokens.inc({ model, direction: 'input' }, decision.reservation.inputTokens);
    this.admissionReservedTokens.inc({ model, direction: 'output' }, decision.reservation.outputTokens);
  }

  /** Counts every run end — succeeded, failed, refused and cancelled, from whichever process ended
   * it — through the engine, which reports each end exactly once, and every run created on a
   * deprecated model. Wire it once per engine. */
  observeRuns(engine: Pick<RunEngine, 'observeRunEnds' | 'observeEvents'>): void {
    engine.observeRunEnds(({ status, errorCode, agent }) => this.runsEnded.inc({ status, error_code: errorCode ?? '', agent }));
    // Counted by the process that created the run (its model-deprecation-warn event is stored there).
    engine.observeEvents((event) => {
      if (event.event === 'model-deprecation-warn' && typeof event.model === 'string') this.deprecatedModelRuns.inc({ model: event.model });
    });
  }

  toolJobHooks(): ToolJobHooks {
    return {
      onToolResult: ({ tool, parseMode, status, durationMs }) => {
        this.toolCalls.inc({ tool, parse_mode: parseMode, status });
        this.toolDuration.observe({ tool }, durationMs / 1000);
      },
      // Reason codes without their detail (a path, a content type) keep the label set bounded.
      onToolOutputInvalid: (tool, reason) => this.toolOutputInvalid.inc({ tool, reason: reasonCodeOf(reason) }),
      onInjectionFlagged: (tool) => this.injectionFlagged.inc({ tool }),
      onKillSwitchState: (mode) => this.killSwitchState.set(killSwitchGaugeValue(mode)),
      onKillSwitchTrip: (scope, cause) => this.killSwitchTrips.inc({ scope, cause }),
      onKillSwitchScopeSource: (source) => {
        this.killSwitchScopeSource = source;
      },
      onWriteRefused: (tool, cause) => this.writesRefused.inc({ tool, reason: cause }),
    };
  }

  async render(): Promise<{ contentType: string; body: string }> {
    return { contentType: this.registry.contentType, body: await this.registry.metrics() };
  }
}
