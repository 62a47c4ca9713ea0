// The tenant's runs, newest first, a page at a time (the API's cursor), with the filters GET
// /v1/runs has: words of the prompt, status, a creation time range and, for admin keys, another
// tenant. The filters live in the page's URL (runs-filters.js; the app mounts a fresh page for
// each), so a filtered view can be shared and reloaded. The page polls its listing every few
// seconds, so statuses change as runs move on. The listing has no cost, so each shown run's record
// is read for it: once for an ended run (its cost is final), at every poll for one still going.
import { useEffect, useRef, useState } from 'preact/hooks';
import { html } from './html.js';
import { requestApi } from './console-client.js';
import { formatTime, formatUsd, isTerminal, RUN_STATUSES } from './format.js';
import { StatusBadge } from './status-badge.js';
import { filtersOf, hashOf, instantOf, localInputOf } from './runs-filters.js';
import { RunIdSearch } from './run-id-search.js';

const POLL_MS = 3000;
const PAGE_SIZE = 20;

function isRunPage(value) {
  return value && Array.isArray(value.runs) && (value.nextCursor === null || typeof value.nextCursor === 'string');
}

export function RunsPage({ query, isAdmin, tenant }) {
  const filters = filtersOf(query);
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
        for (const [name, value] of Object.entries(filters)) query.set(name, value);
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
    // The filters are fixed for this page's life: a change of them mounts a new page.
  }, [cursor]);

  return html`
    <section>
      <div class="toolbar">
        <h1>Runs</h1>
        <a class="button" href="#/new">New build</a>
      </div>
      <${RunIdSearch} />
      <${RunFilters} filters=${filters} isAdmin=${isAdmin} tenant=${tenant} />
      ${error && html`<p class="error" role="alert">${error}</p>`}
      ${page === null && !error && html`<p class="muted">Loading…</p>`}
      ${page &&
      html`
        <div class="runs-scroll">
        <table class="runs" data-testid="runs">
          <thead><tr><th>Run</th><th>Status</th><th>Prompt</th><th>Agent · phase · turn</th><th class="number">Cost</th><th>Created</th></tr></thead>
          <tbody>
            ${page.runs.map(
              (run) => html`
                <tr data-run=${run.id}>
                  <td><a href=${`#/runs/${run.id}`}><code>${run.id.slice(0, 16)}…</code></a></td>
                  <td><${StatusBadge} status=${run.status} /></td>
                  <td class="prompt">${run.prompt}</td>
                  <td>${run.agent} · ${run.phase} · ${run.turn}</td>
                  <td class="number">${formatUsd(costs[run.id])}</td>
                  <td>${formatTime(run.createdAt)}</td>
                </tr>
              `,
            )}
            ${page.runs.length === 0 && html`<tr><td colspan="6" class="muted">No runs${Object.keys(filters).length > 0 ? ' matching these filters' : ''} on this page.</td></tr>`}
          </tbody>
        </table>
        </div>
        <div class="pager">
          <button type="button" disabled=${cursors.length === 1} onClick=${() => setCursors(cursors.slice(0, -1))}>Newer</button>
          <button type="button" disabled=${!page.nextCursor} onClick=${() => setCursors([...cursors, page.nextCursor])}>Older</button>
        </div>
      `}
    </section>
  `;
}

/** The filter form: applying it moves the page to the URL of the filtered list (#/?…). The status
 * applies at once; the text, times and tenant when submitted. */
function RunFilters({ filters, isAdmin, tenant }) {
  const [draft, setDraft] = useState(() => ({ prompt: filters.prompt ?? '', from: localInputOf(filters.from), to: localInputOf(filters.to), tenant: filters.tenant ?? '' }));
  const edit = (name) => (event) => setDraft({ ...draft, [name]: event.currentTarget.value });
  const apply = (changes = {}) => {
    location.hash = hashOf({
      prompt: draft.prompt.trim(),
      status: filters.status,
      from: instantOf({ typed: draft.from, current: filters.from }),
      to: instantOf({ typed: draft.to, current: filters.to }),
      tenant: isAdmin ? draft.tenant.trim() : undefined,
      ...changes,
    });
  };
  const submit = (event) => {
    event.preventDefault();
    apply();
  };
  return html`
    <form class="filters" onSubmit=${submit} data-testid="run-filters">
      <label>Prompt <input type="search" name="prompt" value=${draft.prompt} onInput=${edit('prompt')} maxlength="200" placeholder="words of the prompt" /></label>
      <label>Status
        <select name="status" value=${filters.status ?? ''} onChange=${(event) => apply({ status: event.currentTarget.value })}>
          <option value="">any</option>
          ${RUN_STATUSES.map((value) => html`<option value=${value}>${value}</option>`)}
        </select>
      </label>
      <label>Created from <input type="datetime-local" step="1" name="from" value=${draft.from} onInput=${edit('from')} /></label>
      <label>to <input type="datetime-local" step="1" name="to" value=${draft.to} onInput=${edit('to')} /></label>
      ${isAdmin && html`<label>Tenant <input name="tenant" value=${draft.tenant} onInput=${edit('tenant')} placeholder=${tenant} /></label>`}
      <button type="submit">Search</button>
      ${Object.keys(filters).length > 0 && html`<a href="#/" data-testid="clear-filters">Clear</a>`}
    </form>
  `;
}
