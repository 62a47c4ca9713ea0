// The fleet as an operator sees it (admin keys only): the kill switch's scopes with their state and
// a Reset for each one that stops writes, the job counts of the queues, and the workers connected
// to each queue. Read through the same admin routes a client calls (GET /v1/admin/killswitch,
// /v1/admin/queues, /v1/admin/workers), every few seconds, so a trip or a reset elsewhere shows
// here by itself. Bull Board, for the jobs themselves, is linked (same origin, /queues/). Each
// table scrolls sideways in its own box (.runs-scroll, as the runs list's), so a phone's page does not.
import { useCallback, useEffect, useState } from 'preact/hooks';
import { html } from './html.js';
import { requestApi } from './console-client.js';
import { formatTime } from './format.js';

const POLL_MS = 3000;
/** The job states shown per queue, in the order a job goes through them. */
const JOB_STATES = ['waiting', 'prioritized', 'delayed', 'active', 'waiting-children', 'paused', 'completed', 'failed'];

function isKillSwitchState(value) {
  return value && typeof value.mode === 'string' && Array.isArray(value.scopes) && Array.isArray(value.recent_trips);
}
function isQueueCounts(value) {
  return value && value.queues && typeof value.queues === 'object';
}

/** Reads the three admin routes; each part keeps its last good reading when one read fails. */
function useFleetState() {
  const [state, setState] = useState({ killSwitch: null, counts: null, workers: null });
  const [error, setError] = useState(null);
  const load = useCallback(async () => {
    try {
      const [killSwitch, counts, workers] = await Promise.all([requestApi('/v1/admin/killswitch'), requestApi('/v1/admin/queues'), requestApi('/v1/admin/workers')]);
      if (!isKillSwitchState(killSwitch) || !isQueueCounts(counts) || !isQueueCounts(workers)) throw new Error('The API answered an unexpected admin reading.');
      setState({ killSwitch, counts, workers });
      setError(null);
    } catch (failure) {
      setError(failure.message);
    }
  }, []);
  useEffect(() => {
    load();
    const timer = setInterval(load, POLL_MS);
    return () => clearInterval(timer);
  }, [load]);
  return { ...state, error, reload: load };
}

/** Every scope that stops writes, the fleet first: the API lists tripped and half-open ones; the
 * fleet's own row is always shown, read-write or not. */
function scopeRowsOf(killSwitch) {
  const fleetListed = killSwitch.scopes.some((scope) => scope.scope === 'fleet');
  const fleet = { scope: 'fleet', kind: 'fleet', mode: killSwitch.mode, reason: killSwitch.reason, since: killSwitch.since, source: killSwitch.source, window: killSwitch.window };
  return fleetListed ? killSwitch.scopes : [fleet, ...killSwitch.scopes];
}

function KillSwitchSection({ killSwitch, reload }) {
  const [busy, setBusy] = useState(null);
  const [actionError, setActionError] = useState(null);
  const reset = async (scopeId) => {
    if (!confirm(`Reset the kill-switch scope ${scopeId}? Writes it stops will be allowed again.`)) return;
    setBusy(scopeId);
    setActionError(null);
    try {
      await requestApi('/v1/admin/killswitch', { method: 'POST', body: { mode: 'read_write', scope: scopeId, reason: 'reset from the console' } });
      await reload();
    } catch (failure) {
      setActionError(failure.message);
    } finally {
      setBusy(null);
    }
  };
  const rows = scopeRowsOf(killSwitch);
  return html`
    <section>
      <h2>Kill switch</h2>
      ${actionError && html`<p class="error" role="alert">${actionError}</p>`}
      <div class="runs-scroll">
      <table class="runs" data-testid="killswitch-scopes">
        <thead><tr><th>Scope</th><th>Mode</th><th>Reason</th><th>Since</th><th>Source</th><th class="number">Window (invalid / total)</th><th></th></tr></thead>
        <tbody>
          ${rows.map(
            (scope) => html`
              <tr data-scope=${scope.scope} data-mode=${scope.mode}>
                <td><code>${scope.scope}</code></td>
                <td><span class=${`status mode-${scope.mode}`}>${scope.mode}</span></td>
                <td>${scope.reason ?? '–'}</td>
                <td>${scope.since ? formatTime(scope.since) : '–'}</td>
                <td>${scope.source ?? '–'}</td>
                <td class="number">${scope.window ? `${scope.window.invalid} / ${scope.window.total}` : '–'}</td>
                <td>
                  ${scope.mode !== 'read_write' &&
                  html`<button type="button" class="danger" data-testid="reset-scope" disabled=${busy !== null} onClick=${() => reset(scope.scope)}>Reset</button>`}
                </td>
              </tr>
            `,
          )}
        </tbody>
      </table>
      </div>
      <p class="hint">
        Tripped scopes stop write tools (fleet-wide, for one tenant, or for the runs reading one upstream); reads go on.
        Thresholds: ${Math.round(killSwitch.settings.threshold * 100)}% invalid outputs over ${killSwitch.settings.min_volume} calls in ${Math.round(killSwitch.settings.window_ms / 1000)} s.
      </p>
      ${killSwitch.recent_trips.length > 0 &&
      html`
        <h3>Recent trips</h3>
        <ul class="trips">
          ${killSwitch.recent_trips.slice(0, 5).map((trip) => html`<li><code>${trip.scope}</code> ${formatTime(trip.at)}: ${trip.summary ?? trip.reason}</li>`)}
        </ul>
      `}
    </section>
  `;
}

function QueuesSection({ counts, workers }) {
  const names = [...new Set([...Object.keys(counts.queues), ...Object.keys(workers.queues)])];
  return html`
    <section>
      <h2>Queues</h2>
      <div class="runs-scroll">
      <table class="runs" data-testid="queue-depths">
        <thead><tr><th>Queue</th>${JOB_STATES.map((state) => html`<th class="number">${state}</th>`)}<th class="number">workers</th></tr></thead>
        <tbody>
          ${names.map(
            (name) => html`
              <tr data-queue=${name}>
                <td><code>${name}</code></td>
                ${JOB_STATES.map((state) => html`<td class="number" data-state=${state}>${counts.queues[name]?.[state] ?? '–'}</td>`)}
                <td class="number" data-testid="worker-count">${workers.queues[name]?.length ?? '–'}</td>
              </tr>
            `,
          )}
        </tbody>
      </table>
      </div>
      <h2>Workers</h2>
      <div class="runs-scroll">
      <table class="runs" data-testid="workers">
        <thead><tr><th>Queue</th><th>Worker</th><th>Address</th><th class="number">Connected</th><th class="number">Idle</th></tr></thead>
        <tbody>
          ${names.flatMap((name) =>
            (workers.queues[name] ?? []).map(
              (worker) => html`
                <tr data-queue=${name}>
                  <td><code>${name}</code></td>
                  <td><code>${worker.name ?? '(unnamed)'}</code></td>
                  <td>${worker.address ?? '–'}</td>
                  <td class="number">${worker.connected_seconds ?? '–'} s</td>
                  <td class="number">${worker.idle_seconds ?? '–'} s</td>
                </tr>
              `,
            ),
          )}
          ${names.every((name) => (workers.queues[name] ?? []).length === 0) && html`<tr><td colspan="5" class="muted">No worker is connected.</td></tr>`}
        </tbody>
      </table>
      </div>
    </section>
  `;
}

export function AdminPage() {
  const { killSwitch, counts, workers, error, reload } = useFleetState();
  return html`
    <section class="admin">
      <div class="toolbar">
        <h1>Fleet</h1>
        <a class="button" href="/queues/" data-testid="bull-board-link">Jobs in Bull Board</a>
      </div>
      ${error && html`<p class="error" role="alert">${error}</p>`}
      ${killSwitch === null && !error && html`<p class="muted">Loading…</p>`}
      ${killSwitch && html`<${KillSwitchSection} killSwitch=${killSwitch} reload=${reload} />`}
      ${counts && workers && html`<${QueuesSection} counts=${counts} workers=${workers} />`}
    </section>
  `;
}
