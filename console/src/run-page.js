// One run: its record (status, phase, todos, cost and tokens, links to the site and the trace),
// its controls (cancel; answer the question it asked; resume a failed run, rerun an ended one) and
// its timeline, live over Server-Sent Events: EventSource replays the events so far, then each new
// one as the API writes it, and the record is read again after each burst of events so the header
// keeps up. The stream ends with the run; the run may still move after that (resumed from the CLI,
// the API or another console), so the page then reads the record every few seconds while it is
// visible and follows the stream again, after its last event, when the run goes on.
import { useEffect, useRef, useState } from 'preact/hooks';
import { html } from './html.js';
import { requestApi } from './console-client.js';
import { describeThinking, formatTime, formatTokens, formatUsd, isTerminal, totalTokens, traceUrlOf } from './format.js';
import { StatusBadge } from './status-badge.js';
import { Timeline } from './timeline.js';
import { Waterfall } from './waterfall.js';
import { useRunPayloads } from './run-payloads.js';
import { RESUMABLE_RUN_ERRORS } from '../../src/engine/resumable-run-errors.js';

const REFRESH_DELAY_MS = 400;
// How often an ended run's record is read while the page is visible: one small read, for a page
// left open on a failed run that someone resumes elsewhere.
const ENDED_POLL_MS = 3000;

// The error codes POST /v1/runs/:id/resume accepts (RESUMABLE_RUN_ERRORS in
// src/engine/resumable-run-errors.ts, docs/run-states.md#resume): the button shows only where a
// resume can succeed. The API decides all the same; a refusal is shown as it answers.
const RESUMABLE_ERROR_CODES = Object.keys(RESUMABLE_RUN_ERRORS);

function isRunView(value) {
  return value && typeof value.id === 'string' && typeof value.status === 'string' && Array.isArray(value.todos) && value.usage && typeof value.usage === 'object';
}

function isEvent(value) {
  return value && typeof value.id === 'string' && typeof value.event === 'string' && typeof value.step === 'number';
}

export function RunPage({ runId, session }) {
  const [run, setRun] = useState(null);
  const [events, setEvents] = useState([]);
  const [streamState, setStreamState] = useState('connecting');
  const [error, setError] = useState(null);
  const refreshTimer = useRef(null);
  // Bumped on every refresh: the turns and tool calls are read again with the record.
  const [revision, setRevision] = useState(0);
  const payloads = useRunPayloads({ runId, revision });
  // Bumped when the run goes on after its stream ended (a resume, here or elsewhere): the stream is
  // followed again from the last event shown.
  const [streamGeneration, setStreamGeneration] = useState(0);
  const lastEventId = useRef(null);
  const seen = useRef(new Set());
  // The record's updatedAt when the stream last ended: a later one means the run moved since (a
  // resume that ran and ended again between two reads of an ended run still shows).
  const endedAt = useRef(null);

  /** Reads the record (and, unless told not to, the turns and tool calls); resolves to it or null. */
  const refresh = async ({ payloads: withPayloads = true } = {}) => {
    if (withPayloads) setRevision((value) => value + 1);
    try {
      const next = await requestApi(`/v1/runs/${runId}`);
      if (!isRunView(next)) throw new Error('The API answered an unexpected run record.');
      setRun(next);
      setError(null);
      return next;
    } catch (failure) {
      setError(failure.message);
      return null;
    }
  };

  useEffect(() => {
    refresh();
    setStreamState('connecting');
    // The first stream replays every event; a later one goes on after the last shown (`?after=`,
    // as EventSource's own reconnects do with Last-Event-ID).
    const after = lastEventId.current;
    const source = new EventSource(`/api/v1/runs/${runId}/events${after ? `?after=${encodeURIComponent(after)}` : ''}`);
    source.onopen = () => setStreamState('live');
    source.onmessage = (message) => {
      let event;
      try {
        event = JSON.parse(message.data);
      } catch {
        return;
      }
      // A reconnect replays after Last-Event-ID; the set guards against a repeat all the same.
      if (!isEvent(event) || seen.current.has(event.id)) return;
      seen.current.add(event.id);
      lastEventId.current = event.id;
      setEvents((current) => [...current, event]);
      clearTimeout(refreshTimer.current);
      refreshTimer.current = setTimeout(refresh, REFRESH_DELAY_MS);
    };
    source.addEventListener('end', () => {
      // Without close() EventSource would reconnect and be told again that the run ended.
      source.close();
      setStreamState('ended');
      refresh().then((record) => {
        if (record) endedAt.current = record.updatedAt;
      });
    });
    source.onerror = () => setStreamState(source.readyState === EventSource.CLOSED ? 'closed' : 'reconnecting');
    return () => {
      source.close();
      clearTimeout(refreshTimer.current);
    };
  }, [runId, streamGeneration]);

  // After the stream: is the run going again? Read while the page is visible (and at once when it
  // becomes visible), so a page left open in a background tab costs nothing.
  useEffect(() => {
    if (streamState !== 'ended' && streamState !== 'closed') return undefined;
    let stopped = false;
    const check = async () => {
      if (document.visibilityState !== 'visible') return;
      const record = await refresh({ payloads: false });
      if (stopped || !record) return;
      const moved = !isTerminal(record.status) || (endedAt.current !== null && record.updatedAt !== endedAt.current);
      if (moved) setStreamGeneration((value) => value + 1);
    };
    const timer = setInterval(check, ENDED_POLL_MS);
    document.addEventListener('visibilitychange', check);
    return () => {
      stopped = true;
      clearInterval(timer);
      document.removeEventListener('visibilitychange', check);
    };
  }, [streamState]);

  if (!run) return html`<section>${error ? html`<p class="error" role="alert">${error}</p>` : html`<p class="muted">Loading ${runId}…</p>`}</section>`;
  return html`
    <section class="run" data-run=${run.id}>
      <div class="run-head">
        <h1 class="run-id"><code>${run.id}</code></h1>
        <${StatusBadge} status=${run.status} />
        <span class="muted">agent ${run.agent} · phase ${run.phase} · turn ${run.turn} · ${run.model} · ${describeThinking(run)}</span>
      </div>
      ${error && html`<p class="error" role="alert">${error}</p>`}
      <div class="run-grid">
        <div class="run-main">
          <${Controls} run=${run} onChanged=${refresh} onReopened=${() => setStreamGeneration((value) => value + 1)} />
          ${run.result && html`<div class="result"><h2>Result</h2><p>${run.result}</p></div>`}
          ${run.error && html`<div class="run-error"><h2>Error</h2><p><code>${run.error.code}</code> ${run.error.message}</p></div>`}
          <${Waterfall}
            events=${events}
            payloads=${payloads}
            running=${!isTerminal(run.status)}
            traceUrl=${traceUrlOf(session.traceUrlTemplate, run.traceId)}
          />
          <h2>Timeline <span class=${`stream stream-${streamState}`} data-testid="stream-state">${streamState}</span></h2>
          <${Timeline} events=${events} payloads=${payloads} />
        </div>
        <aside class="run-side">
          <${Facts} run=${run} session=${session} />
          <${Todos} todos=${run.todos} />
        </aside>
      </div>
    </section>
  `;
}

function Facts({ run, session }) {
  const traceUrl = traceUrlOf(session.traceUrlTemplate, run.traceId);
  const site = run.deployment?.live ?? null;
  return html`
    <dl class="facts">
      <dt>Cost</dt><dd data-testid="cost">${formatUsd(run.costUsd)}</dd>
      <dt>Tokens</dt><dd>${formatTokens(totalTokens(run.usage))}</dd>
      <dd class="breakdown">
        ${Object.entries(run.usage).map(([name, value]) => html`<span>${name.replaceAll('_', ' ')}: ${formatTokens(value)}</span>`)}
      </dd>
      ${run.budget?.usd && html`<dt>Budget</dt><dd>${formatUsd(run.budget.usd.spent)} of ${formatUsd(run.budget.usd.limit)}</dd>`}
      ${run.rerunOf && html`<dt>Rerun of</dt><dd><a href=${`#/runs/${run.rerunOf}`} class="run-id-link" title=${run.rerunOf} data-testid="rerun-of"><code>${run.rerunOf}</code></a></dd>`}
      <dt>Created</dt><dd>${formatTime(run.createdAt)}</dd>
      <dt>Updated</dt><dd>${formatTime(run.updatedAt)}</dd>
      <dt>Site</dt>
      <dd>${site ? html`<a href=${site.url} target="_blank" rel="noopener noreferrer" data-testid="site-link">published site ↗</a>` : html`<span class="muted">not published</span>`}</dd>
      <dt>Trace</dt>
      <dd>${traceUrl ? html`<a href=${traceUrl} target="_blank" rel="noopener noreferrer" data-testid="trace-link">trace ${run.traceId.slice(0, 8)}… ↗</a>` : html`<span class="muted">${run.traceId ? 'no BUILDFLEET_TRACE_URL_TEMPLATE' : 'none'}</span>`}</dd>
      <dt>Files</dt><dd>${run.files.length === 0 ? html`<span class="muted">none</span>` : run.files.map((file) => html`<div><code>${file.path}</code> <span class="muted">${file.bytes} B</span></div>`)}</dd>
    </dl>
  `;
}

function Todos({ todos }) {
  if (todos.length === 0) return null;
  return html`
    <h2>Todos</h2>
    <ul class="todos">
      ${todos.map((todo) => html`<li class=${todo.done ? 'done' : ''}>${todo.done ? '✓' : '○'} ${todo.title} <span class="muted">${todo.phase}</span></li>`)}
    </ul>
  `;
}

function Controls({ run, onChanged, onReopened }) {
  const [error, setError] = useState(null);
  const [busy, setBusy] = useState(false);

  /** POSTs to the API; resolves to its answer, or null when it refused (the refusal is shown). */
  const act = async (path, body) => {
    setBusy(true);
    setError(null);
    try {
      const answer = await requestApi(path, { method: 'POST', ...(body ? { body } : {}) });
      await onChanged();
      return answer;
    } catch (failure) {
      setError(failure.code ? `${failure.message} (${failure.code})` : failure.message);
      return null;
    } finally {
      setBusy(false);
    }
  };
  if (isTerminal(run.status)) {
    const resumable = run.status === 'failed' && RESUMABLE_ERROR_CODES.includes(run.error?.code);
    const resume = async () => {
      if (await act(`/v1/runs/${run.id}/resume`)) onReopened();
    };
    // The new run's page: it is linked back to this one (rerunOf).
    const rerun = async () => {
      const answer = await act(`/v1/runs/${run.id}/rerun`, {});
      if (answer && typeof answer.id === 'string') location.hash = `#/runs/${answer.id}`;
    };
    return html`
      <div class="controls">
        ${resumable && html`<button type="button" disabled=${busy} onClick=${resume} data-testid="resume">Resume from turn ${run.turn}</button>`}
        <button type="button" disabled=${busy} onClick=${rerun} data-testid="rerun">Rerun</button>
        ${error && html`<p class="error" role="alert">${error}</p>`}
      </div>
    `;
  }

  const answer = (event) => {
    event.preventDefault();
    const form = event.currentTarget;
    const text = String(new FormData(form).get('answer') ?? '').trim();
    if (text) act(`/v1/runs/${run.id}/input`, { text }).then(() => form.reset());
  };
  return html`
    <div class="controls">
      ${run.status === 'waiting_for_input' &&
      run.question &&
      html`
        <form class="question" onSubmit=${answer}>
          <p><b>The agent asks:</b> <span data-testid="question">${run.question.question}</span></p>
          <textarea name="answer" rows="2" required placeholder="Your answer"></textarea>
          <button type="submit" disabled=${busy}>Answer</button>
        </form>
      `}
      <button type="button" class="danger" disabled=${busy} onClick=${() => confirm('Cancel this run?') && act(`/v1/runs/${run.id}/cancel`)}>Cancel run</button>
      ${error && html`<p class="error" role="alert">${error}</p>`}
    </div>
  `;
}
