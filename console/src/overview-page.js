// The fleet overview (#/overview, an admin's landing page; every key may open it for its own
// tenant): runs by outcome, success rate, cost by tenant and by model, turn and model latency, the
// health signals against their alarm thresholds and by tool count, kill switch trips, and the queues
// and the kill switch now — one GET /v1/overview per range, refreshed every 30 s. The range (and an
// admin's tenant filter) ride in the hash, #/overview?range=7d&tenant=acme, so a link keeps them.
import { useCallback, useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { html } from './html.js';
import { requestApi } from './console-client.js';
import { formatTime, formatUsd } from './format.js';
import { OverviewChart } from './overview-chart.js';
import { ToolCountTable } from './overview-tool-counts.js';
import { DEFAULT_OVERVIEW_RANGE, OVERVIEW_RANGES, OVERVIEW_RANGE_NAMES } from '../../src/domain/overview-ranges.js';
import { TERMINAL_STATUSES } from '../../src/domain/run-outcomes.js';

const REFRESH_MS = 30_000;

/** The range and tenant of an #/overview?… query, an unknown range read as the default. */
export function overviewQueryOf(query) {
  const params = new URLSearchParams(query);
  const range = params.get('range');
  return { range: OVERVIEW_RANGE_NAMES.includes(range) ? range : DEFAULT_OVERVIEW_RANGE, tenant: params.get('tenant') ?? '' };
}

function hashOf({ range, tenant }) {
  const params = new URLSearchParams();
  if (range !== DEFAULT_OVERVIEW_RANGE) params.set('range', range);
  if (tenant) params.set('tenant', tenant);
  const query = params.toString();
  return query ? `#/overview?${query}` : '#/overview';
}

function isOverview(value) {
  return value && Array.isArray(value.bucketStarts) && value.history && typeof value.history.state === 'string' && value.killSwitch;
}

const percent = (rate) => (rate === null || rate === undefined ? '–' : `${(rate * 100).toFixed(1)}%`);
const milliseconds = (value) => {
  if (value === null || value === undefined) return '–';
  return value >= 1000 ? `${(value / 1000).toFixed(1)} s` : `${Math.round(value)} ms`;
};

function Stat({ label, value, detail, tone = '', testId }) {
  return html`<div class=${`stat ${tone}`} data-testid=${testId}>
    <span class="stat-label">${label}</span>
    <b class="stat-value">${value}</b>
    ${detail && html`<span class="stat-detail muted">${detail}</span>`}
  </div>`;
}

function Stats({ overview }) {
  const { figures, killSwitch, queues, thresholds } = overview;
  const waiting = queues ? Object.values(queues).reduce((sum, queue) => sum + queue.waiting + queue.prioritized + queue.delayed, 0) : null;
  const workers = queues ? Object.values(queues).reduce((sum, queue) => sum + queue.workers, 0) : null;
  const toolUse = figures?.health.toolUseRate ?? null;
  const toolUseTone =
    toolUse === null ? '' : toolUse < thresholds.toolUseRateCriticalBelow ? 'bad' : toolUse < thresholds.toolUseRateAlarmBelow ? 'warn' : 'ok';
  const byStatus = figures ? TERMINAL_STATUSES.map((status) => `${figures.runs.byStatus[status]} ${status}`).join(' · ') : '';
  const latency = figures ? `${milliseconds(figures.latency.turnP50Ms)} / ${milliseconds(figures.latency.turnP99Ms)}` : '';
  const killSwitchDetail =
    killSwitch.scopesTripped > 0 ? `${killSwitch.scopesTripped} scope(s) tripped` : killSwitch.since ? `since ${formatTime(killSwitch.since)}` : null;
  const killSwitchTone = killSwitch.mode === 'read_write' && killSwitch.scopesTripped === 0 ? 'ok' : 'bad';
  return html`
    <div class="stats">
      ${figures &&
      html`
        <${Stat} label="Runs" value=${figures.runs.total} detail=${byStatus} testId="stat-runs" />
        <${Stat} label="Success rate" value=${percent(figures.runs.successRate)} testId="stat-success" />
        <${Stat} label="Cost" value=${formatUsd(figures.cost.totalUsd)} testId="stat-cost" />
        <${Stat} label="Turn p50 / p99" value=${latency} detail=${`${figures.latency.turns} turns`} testId="stat-latency" />
        <${Stat}
          label="tool_use_rate"
          value=${percent(toolUse)}
          detail=${`alarm below ${percent(thresholds.toolUseRateAlarmBelow)}`}
          tone=${toolUseTone}
          testId="stat-tool-use"
        />
      `}
      <${Stat} label="Kill switch" value=${killSwitch.mode} detail=${killSwitchDetail} tone=${killSwitchTone} testId="stat-killswitch" />
      ${queues &&
      html`<${Stat}
        label="Jobs waiting"
        value=${waiting}
        detail=${`${workers} workers connected`}
        tone=${waiting > 0 && workers === 0 ? 'bad' : ''}
        testId="stat-queues"
      />`}
    </div>
  `;
}

/** The charts' inputs, built once per answer (uPlot redraws only when they change). */
function chartsOf(overview) {
  const times = overview.bucketStarts.map((start) => Date.parse(start) / 1000);
  const { figures, thresholds } = overview;
  if (!figures) return null;
  const named = (entries) => entries.map((entry) => ({ label: entry.name, values: entry.usd }));
  return {
    times,
    runs: TERMINAL_STATUSES.map((status) => ({ label: status, values: figures.runs.series[status] })),
    costByTenant: named(figures.cost.byTenant),
    costByModel: named(figures.cost.byModel),
    turnLatency: [
      { label: 'p50', values: figures.latency.series.turnP50Ms },
      { label: 'p99', values: figures.latency.series.turnP99Ms },
    ],
    modelLatency: [
      { label: 'p50', values: figures.latency.series.modelP50Ms },
      { label: 'p99', values: figures.latency.series.modelP99Ms },
    ],
    toolUse: [{ label: 'tool_use_rate', values: figures.health.series.toolUseRate }],
    toolUseThresholds: [
      { label: `alarm < ${thresholds.toolUseRateAlarmBelow * 100}%`, value: thresholds.toolUseRateAlarmBelow, kind: 'alarm' },
      { label: `critical < ${thresholds.toolUseRateCriticalBelow * 100}%`, value: thresholds.toolUseRateCriticalBelow, kind: 'critical' },
    ],
    jsonInText: [{ label: 'json_in_text_rate', values: figures.health.series.jsonInTextRate }],
    recovery: [{ label: 'recovery rate', values: figures.health.series.recoveryRate }],
    recoveryThresholds: [{ label: `alarm > ${thresholds.recoveryRateAlarmAbove * 100}%`, value: thresholds.recoveryRateAlarmAbove, kind: 'alarm' }],
    fenceOnly: [{ label: 'fence-only stops', values: figures.health.series.fenceOnlyStops }],
    trips: [{ label: 'kill switch trips', values: figures.killSwitchTrips.series }],
  };
}

function Charts({ charts }) {
  const noRuns = 'No run archived in this range.';
  const noTurns = 'No turn archived in this range.';
  const { times } = charts;
  return html`
    <h2>Runs and cost</h2>
    <div class="charts">
      <${OverviewChart} title="Runs by outcome" unit="runs" times=${times} series=${charts.runs} empty=${noRuns} testId="chart-runs" />
      <${OverviewChart}
        title="Cost by tenant"
        unit="USD"
        times=${times}
        series=${charts.costByTenant}
        empty=${noRuns}
        testId="chart-cost-tenant"
      />
      <${OverviewChart} title="Cost by model" unit="USD" times=${times} series=${charts.costByModel} empty=${noRuns} testId="chart-cost-model" />
      <${OverviewChart} title="Turn latency" unit="ms" times=${times} series=${charts.turnLatency} empty=${noTurns} testId="chart-turn-latency" />
      <${OverviewChart}
        title="Model call latency"
        unit="ms"
        times=${times}
        series=${charts.modelLatency}
        empty=${noTurns}
        testId="chart-model-latency"
      />
      <${OverviewChart}
        title="Kill switch trips"
        unit="trips"
        times=${times}
        series=${charts.trips}
        empty="No kill switch trip in this range."
        testId="chart-trips"
      />
    </div>
    <h2>Health signals</h2>
    <div class="charts">
      <${OverviewChart}
        title="tool_use_rate"
        unit="%"
        times=${times}
        series=${charts.toolUse}
        thresholds=${charts.toolUseThresholds}
        empty=${noTurns}
        testId="chart-tool-use"
      />
      <${OverviewChart}
        title="json_in_text_rate"
        unit="%"
        times=${times}
        series=${charts.jsonInText}
        empty=${noTurns}
        testId="chart-json-in-text"
      />
      <${OverviewChart}
        title="Recovery rate"
        unit="%"
        times=${times}
        series=${charts.recovery}
        thresholds=${charts.recoveryThresholds}
        empty=${noTurns}
        testId="chart-recovery"
      />
      <${OverviewChart}
        title="Fence-only stops"
        unit="turns"
        times=${times}
        series=${charts.fenceOnly}
        empty="No turn stopped inside an open fence."
        testId="chart-fence-only"
      />
    </div>
  `;
}

function QueuesTable({ queues }) {
  return html`
    <h2>Queues now</h2>
    <div class="runs-scroll">
      <table class="runs" data-testid="overview-queues">
        <thead>
          <tr>
            <th>Queue</th>
            <th class="number">Waiting</th>
            <th class="number">Active</th>
            <th class="number">Delayed</th>
            <th class="number">Failed</th>
            <th class="number">Workers</th>
          </tr>
        </thead>
        <tbody>
          ${Object.entries(queues).map(
            ([name, queue]) => html`<tr data-queue=${name}>
              <td><code>${name}</code></td>
              <td class="number">${queue.waiting + queue.prioritized}</td>
              <td class="number">${queue.active}</td>
              <td class="number">${queue.delayed}</td>
              <td class="number">${queue.failed}</td>
              <td class="number">${queue.workers}</td>
            </tr>`,
          )}
        </tbody>
      </table>
    </div>
  `;
}

function RangeBar({ query, isAdmin }) {
  const [tenant, setTenant] = useState(query.tenant);
  const go = (next) => {
    location.hash = hashOf({ ...query, ...next });
  };
  return html`
    <div class="overview-bar">
      <h1>Fleet overview</h1>
      <div class="ranges" role="group" aria-label="Time range" data-testid="overview-ranges">
        ${OVERVIEW_RANGE_NAMES.map(
          (range) => html`<button
            type="button"
            class=${range === query.range ? 'current' : ''}
            aria-pressed=${range === query.range ? 'true' : 'false'}
            title=${OVERVIEW_RANGES[range].label}
            onClick=${() => go({ range })}
          >
            ${range}
          </button>`,
        )}
      </div>
      ${isAdmin &&
      html`<form class="overview-tenant" onSubmit=${(event) => (event.preventDefault(), go({ tenant: tenant.trim() }))}>
        <label>
          Tenant
          <input name="tenant" type="search" placeholder="every tenant" value=${tenant} onInput=${(event) => setTenant(event.currentTarget.value)} />
        </label>
      </form>`}
    </div>
  `;
}

export function OverviewPage({ query: rawQuery, isAdmin, tenant }) {
  const query = overviewQueryOf(rawQuery);
  const [overview, setOverview] = useState(null);
  const [error, setError] = useState(null);
  // Each read is numbered: an answer for an earlier range or tenant that arrives after a later
  // one's (a slow history query) is dropped instead of replacing it.
  const latest = useRef(0);
  const load = useCallback(async () => {
    const params = new URLSearchParams({ range: query.range });
    if (query.tenant) params.set('tenant', query.tenant);
    const read = ++latest.current;
    try {
      const answer = await requestApi(`/v1/overview?${params}`);
      if (!isOverview(answer)) throw new Error('The API answered an unexpected overview.');
      if (read !== latest.current) return;
      setOverview(answer);
      setError(null);
    } catch (failure) {
      if (read === latest.current) setError(failure.message);
    }
  }, [query.range, query.tenant]);
  useEffect(() => {
    load();
    const timer = setInterval(load, REFRESH_MS);
    return () => clearInterval(timer);
  }, [load]);
  const charts = useMemo(() => (overview ? chartsOf(overview) : null), [overview]);

  return html`
    <section class="overview" data-testid="overview">
      <${RangeBar} key=${query.tenant ?? ''} query=${query} isAdmin=${isAdmin} />
      <p class="muted overview-scope">
        ${overview ? (overview.tenant === null ? 'Every tenant' : html`Tenant <b>${overview.tenant}</b>`) : isAdmin ? '' : html`Tenant <b>${tenant}</b>`}
        ${' · '}${OVERVIEW_RANGES[query.range].label}${overview ? ` (from ${formatTime(overview.from)})` : ''}
      </p>
      ${error && html`<p class="error" role="alert">${error}</p>`}
      ${!overview && !error && html`<p class="loading">Loading the overview…</p>`}
      ${overview &&
      html`
        ${overview.history.state !== 'on' && html`<p class="notice" data-testid="history-off">${overview.history.message ?? 'Run history is off.'}</p>`}
        <${Stats} overview=${overview} />
        ${charts && html`<${Charts} charts=${charts} />`}
        ${overview.figures && html`<${ToolCountTable} rows=${overview.figures.health.byToolCount} thresholds=${overview.thresholds} />`}
        ${overview.queues && html`<${QueuesTable} queues=${overview.queues} />`}
        ${overview.killSwitch.recentTrips.length > 0 &&
        html`<h2>Recent kill switch trips</h2>
          <ul class="trips" data-testid="overview-trips">
            ${overview.killSwitch.recentTrips.map(
              (trip) =>
                html`<li>
                  <time>${formatTime(trip.at)}</time> <code>${trip.scope}</code> ${trip.cause} · ${trip.tool} · ${percent(trip.rate)} invalid
                </li>`,
            )}
          </ul>`}
      `}
    </section>
  `;
}
