// The tenant's runs, newest first, a page at a time (the API's cursor), with the status filter the
// API has. The page polls its listing every few seconds, so statuses change as runs move on. The
// listing has no cost, so each shown run's record is read for it: once for an ended run (its cost
// is final), at every poll for one still going.
import { useEffect, useRef, useState } from 'preact/hooks';
import { html } from './html.js';
import { requestApi } from './console-client.js';
import { formatTime, formatUsd, isTerminal, RUN_STATUSES } from './format.js';
import { StatusBadge } from './status-badge.js';

const POLL_MS = 3000;
const PAGE_SIZE = 20;

function isRunPage(value) {
  return value && Array.isArray(value.runs) && (value.nextCursor === null || typeof value.nextCursor === 'string');
}

export function RunsPage() {
  const [status, setStatus] = useState('');
  // The cursors of the pages before this one, so "Newer" can go back; null is the first page.
  const [cursors, setCursors] = useState([null]);
  const [page, setPage] = useState(null);
  const [error, setError] = useState(null);
  const [costs, setCosts] = useState({});
  const finalCosts = useRef({});
  const cursor = cursors[cursors.length - 1];

  useEffect(() => {
    let stopped = false;
    const load = async () => {
      try {
        const query = new URLSearchParams({ limit: String(PAGE_SIZE) });
        if (cursor) query.set('cursor', cursor);
        if (status) query.set('status', status);
        const next = await requestApi(`/v1/runs?${query}`);
        if (!isRunPage(next)) throw new Error('The API answered an unexpected run listing.');
        if (stopped) return;
        setPage(next);
        setError(null);
        const readings = await Promise.all(
          next.runs.map(async (run) => {
            if (typeof run.costUsd === 'number') return [run.id, run.costUsd];
            if (run.id in finalCosts.current) return [run.id, finalCosts.current[run.id]];
            const record = await requestApi(`/v1/runs/${run.id}`).catch(() => null);
            const cost = record && typeof record.costUsd === 'number' ? record.costUsd : null;
            if (record && isTerminal(record.status) && cost !== null) finalCosts.current[run.id] = cost;
            return [run.id, cost];
          }),
        );
        if (!stopped) setCosts(Object.fromEntries(readings));
      } catch (failure) {
        if (!stopped) setError(failure.message);
      }
    };
    load();
    const timer = setInterval(load, POLL_MS);
    return () => {
      stopped = true;
      clearInterval(timer);
    };
  }, [cursor, status]);

  const changeStatus = (event) => {
    setStatus(event.currentTarget.value);
    setCursors([null]);
  };

  return html`
    <section>
      <div class="toolbar">
        <h1>Runs</h1>
        <label>Status
          <select name="status" value=${status} onChange=${changeStatus}>
            <option value="">any</option>
            ${RUN_STATUSES.map((value) => html`<option value=${value}>${value}</option>`)}
          </select>
        </label>
        <a class="button" href="#/new">New build</a>
      </div>
      ${error && html`<p class="error" role="alert">${error}</p>`}
      ${page === null && !error && html`<p class="muted">Loading…</p>`}
      ${page &&
      html`
        <table class="runs" data-testid="runs">
          <thead><tr><th>Run</th><th>Status</th><th>Prompt</th><th>Phase · turn</th><th class="number">Cost</th><th>Created</th></tr></thead>
          <tbody>
            ${page.runs.map(
              (run) => html`
                <tr data-run=${run.id}>
                  <td><a href=${`#/runs/${run.id}`}><code>${run.id.slice(0, 16)}…</code></a></td>
                  <td><${StatusBadge} status=${run.status} /></td>
                  <td class="prompt">${run.prompt}</td>
                  <td>${run.phase} · ${run.turn}</td>
                  <td class="number">${formatUsd(costs[run.id])}</td>
                  <td>${formatTime(run.createdAt)}</td>
                </tr>
              `,
            )}
            ${page.runs.length === 0 && html`<tr><td colspan="6" class="muted">No runs${status ? ` with status ${status}` : ''} on this page.</td></tr>`}
          </tbody>
        </table>
        <div class="pager">
          <button type="button" disabled=${cursors.length === 1} onClick=${() => setCursors(cursors.slice(0, -1))}>Newer</button>
          <button type="button" disabled=${!page.nextCursor} onClick=${() => setCursors([...cursors, page.nextCursor])}>Older</button>
        </div>
      `}
    </section>
  `;
}
