// The run's events as a timeline, grouped by turn (the events' `step`). Each kind a person looks
// for has a line of its own: the model call and its answer (stop reason, tokens, cost), each tool
// call (dispatch, start, retries and end joined by tool_use_id), phase changes, questions and
// answers, kill-switch refusals, retries and backoffs, webhook delivery attempts. Every line opens
// to the event's fields as the API sent them, so nothing an event carries is hidden; kinds not
// named here show their name. With the run's payloads (run-payloads.js), each turn shows the
// model's text and each tool call opens to its input, its output and the output contract's verdict.
// Each line starts with its event's time (to the ms) and, where the event ends something (a model
// call, a tool call, a question, the run), says how long that took (event-durations.ts).
import { html } from './html.js';
import { formatUsd } from './format.js';
import { eventDurations } from './event-durations.js';
import { formatClock, formatDuration } from './format-time-span.js';
import { EVENT, TOOL_EVENTS, WARNING_EVENTS } from './timeline-event-names.js';

/** Which pause a wait is behind: the run's provider and its model's rate-limit class. */
const pauseScope = (event) => (event.provider && event.rate_limit_class ? ` · ${event.provider} / ${event.rate_limit_class}` : '');

/** "attempt 2 of 10", or "attempt 2" when the total is not known. */
function attemptOf(event) {
  if (typeof event.attempt !== 'number') return '';
  return `attempt ${event.attempt}${typeof event.attempts === 'number' ? ` of ${event.attempts}` : ''}`;
}

/** One line of text for an event. */
function describe(event) {
  switch (event.event) {
    case EVENT.runCreate:
      return `Run created · ${event.model ?? ''}`;
    case EVENT.turnStart:
      return `Model call · phase ${event.phase} · ${event.tools} tools · tool_choice ${event.tool_choice} · attempt ${event.attempt}`;
    case EVENT.modelProgress:
      return `Writing${event.tool ? ` ${event.tool}` : ` ${event.block ?? ''}`} · ≈${event.output_tokens} tokens · ${Math.round((event.elapsed_ms ?? 0) / 1000)} s`;
    case EVENT.modelCallEnd: {
      const usage = event.usage ?? {};
      const input = (usage.input_tokens ?? 0) + (usage.cache_write_5m_input_tokens ?? 0) + (usage.cache_write_1h_input_tokens ?? 0) + (usage.cache_read_input_tokens ?? 0);
      const tools = Array.isArray(event.tool_uses) && event.tool_uses.length > 0 ? ` · calls ${event.tool_uses.join(', ')}` : '';
      return `Answer · ${event.stop_reason} · ${input} in / ${usage.output_tokens ?? 0} out · ${formatUsd(event.cost_usd)}${tools}`;
    }
    case EVENT.phaseChange:
      return `Phase ${event.from} → ${event.to}`;
    case EVENT.inputWait:
      return `Asked the user${event.question ? `: ${event.question}` : ''}`;
    case EVENT.inputReceive:
      return `The user answered${event.answer ? `: ${event.answer}` : ''}`;
    case EVENT.modelCallFail:
      return `Model error ${event.status ?? ''} ${event.error_type ?? ''} · ${event.outcome} · attempt ${event.attempt}: ${event.message ?? ''}`;
    case EVENT.modelOverloadWait:
      return `Overloaded · waiting ${event.wait_ms} ms (step ${event.backoff_step})${pauseScope(event)}`;
    case EVENT.modelRateLimitWait:
      return `Rate limited · waiting ${event.wait_ms} ms${pauseScope(event)}`;
    case EVENT.modelAdmissionWait:
      return `Waiting for model capacity (${event.limit}) · ${event.wait_ms} ms`;
    case EVENT.runReopen:
      return `Resumed · turn ${event.step} called again after ${event.error_code} (resume ${event.reopen})`;
    case EVENT.runEnd:
      return `Run ended · ${event.status}${event.error_code ? ` · ${event.error_code}` : ''}`;
    // A tool job that threw with attempts left (src/tools/run-tool-job.ts): the queue runs it again.
    case EVENT.toolCallRetry:
      return `${event.tool ?? 'Tool'} failed on ${attemptOf(event)}, retried: ${event.message ?? 'no reason given'}`;
    // One attempt of a webhook delivery each (docs/webhooks.md#in-the-runs-events).
    case EVENT.webhookDeliver:
      return `Webhook ${event.webhook_event ?? ''} delivered · HTTP ${event.status} · ${attemptOf(event)}`;
    case EVENT.webhookFail:
      return `Webhook ${event.webhook_event ?? ''} not delivered · ${event.status === null || event.status === undefined ? 'no answer' : `HTTP ${event.status}`} · ${event.reason ?? ''} · ${attemptOf(event)} · ${event.final ? 'given up' : 'will retry'}`;
    default:
      if (event.event.startsWith('killswitch-')) return `Kill switch · ${event.event.slice('killswitch-'.length)}${event.scope ? ` · ${typeof event.scope === 'string' ? event.scope : JSON.stringify(event.scope)}` : ''}${event.tool ? ` · ${event.tool}` : ''}`;
      return event.event;
  }
}

/** The class of a line: what kind of thing happened. */
function kindOf(name) {
  if (name.startsWith('killswitch-')) return 'killswitch';
  if (WARNING_EVENTS.has(name)) return 'warning';
  if (name === EVENT.phaseChange) return 'phase';
  if (name === EVENT.runEnd || name === EVENT.runCreate || name === EVENT.runReopen) return 'run';
  if (name.startsWith('input-')) return 'question';
  return 'model';
}

/** Groups a turn's events into lines: tool events by tool_use_id, progress folded into its latest. */
function linesOf(events) {
  const lines = [];
  const tools = new Map();
  let progress = null;
  for (const event of events) {
    if (TOOL_EVENTS.has(event.event) && typeof event.tool_use_id === 'string') {
      let line = tools.get(event.tool_use_id);
      if (!line) {
        line = { type: 'tool', id: event.tool_use_id, events: [] };
        tools.set(event.tool_use_id, line);
        lines.push(line);
      }
      line.events.push(event);
      continue;
    }
    if (event.event === EVENT.modelProgress) {
      if (!progress) {
        progress = { type: 'event', event };
        lines.push(progress);
      } else progress.event = event;
      continue;
    }
    lines.push({ type: 'event', event });
  }
  return lines;
}

/** The event's time, and how long what it ends took: a column of its own beside the line. */
function When({ event, durationMs }) {
  return html`<span class="when">
    <time class="at" datetime=${event.at} data-testid="event-time">${formatClock(event.at)}</time>
    ${typeof durationMs === 'number' && html`<span class="took" data-testid="event-duration">${formatDuration(durationMs)}</span>`}
  </span>`;
}

function Fields({ value }) {
  return html`<pre class="fields">${JSON.stringify(value, null, 2)}</pre>`;
}

/** A tool call's input, output and verdict, from GET /v1/runs/:id/tool-calls. */
function ToolCallPayload({ call }) {
  const output = call.result ? (call.result.output !== undefined ? call.result.output : call.result.content) : null;
  return html`
    <div class="tool-payload" data-testid="tool-call-payload">
      <p>
        <b>Verdict</b> <span class=${`verdict verdict-${call.verdict ?? 'pending'}`} data-testid="tool-call-verdict">${call.verdict ?? 'no result yet'}</span>
        ${call.verdictReason && html` <code>${call.verdictReason}</code>`}
        ${call.untrusted && html` <span class="muted">· delivered as untrusted data</span>`}
      </p>
      ${call.injectionFlags.map((flag) => html`<p class="warning">Possible injection in the ${flag.source}: ${flag.patterns.join(', ')}</p>`)}
      <b>Input</b>
      <pre class="fields" data-testid="tool-call-input">${JSON.stringify(call.input, null, 2)}</pre>
      <b>Output</b>
      <pre class="fields" data-testid="tool-call-output">${output === null ? '(none yet)' : typeof output === 'string' ? output : JSON.stringify(output, null, 2)}</pre>
    </div>
  `;
}

function ToolLine({ line, call, durations }) {
  const first = line.events[0];
  const end = line.events.find((event) => event.event === EVENT.toolCallEnd);
  const rejected = line.events.find((event) => event.event === EVENT.toolCallReject);
  const flagged = line.events.some((event) => event.event === EVENT.toolOutputInjectionFlag);
  const retries = line.events.filter((event) => event.event === EVENT.toolCallRetry);
  const attempt = Math.max(...line.events.map((event) => (typeof event.attempt === 'number' ? event.attempt : 1)));
  const outcome = rejected ? `refused${rejected.reason ? ` (${rejected.reason})` : ''}` : end ? (end.ok ? 'ok' : `failed${end.error_code ? ` (${end.error_code})` : ''}`) : 'running…';
  const state = rejected || (end && !end.ok) ? 'failed' : end ? 'ok' : 'running';
  return html`
    <li class=${`line tool tool-${state}`} data-event="tool-call" data-tool=${first.tool}>
      <${When} event=${first} durationMs=${end ? durations.get(end.id) : undefined} />
      <details>
        <summary>
          <span class="tool-name">${first.tool ?? 'tool'}</span> · ${outcome}${attempt > 1 ? ` · attempt ${attempt}` : ''}${retries.length > 0 ? ` · retried ${retries.length}× (${retries[retries.length - 1].message ?? 'no reason given'})` : ''}${flagged ? ' · flagged as possible injection' : ''}${call?.verdict ? ` · ${call.verdict}` : ''}
        </summary>
        ${call && html`<${ToolCallPayload} call=${call} />`}
        ${line.events.map((event) => html`<div class="tool-event" data-event=${event.event}><b>${event.event}</b>${event.event === EVENT.toolCallRetry ? html` <span data-testid="tool-event-description">${describe(event)}</span>` : ''}<${Fields} value=${event} /></div>`)}
      </details>
    </li>
  `;
}

function EventLine({ event, durationMs }) {
  return html`
    <li class=${`line ${kindOf(event.event)}`} data-event=${event.event}>
      <${When} event=${event} durationMs=${durationMs} />
      <details>
        <summary>${describe(event)}</summary>
        <${Fields} value=${event} />
      </details>
    </li>
  `;
}

/** The model's text of a turn, when it wrote any. */
function ModelText({ turn }) {
  if (!turn?.text) return null;
  return html`<div class="model-text" data-testid="model-text"><b>The model wrote</b><p>${turn.text}</p></div>`;
}

export function Timeline({ events, payloads = { turnsByStep: new Map(), callsById: new Map(), error: null } }) {
  if (events.length === 0) return html`<p class="muted">No events yet.</p>`;
  const durations = eventDurations(events);
  const turns = new Map();
  for (const event of events) {
    if (!turns.has(event.step)) turns.set(event.step, []);
    turns.get(event.step).push(event);
  }
  return html`
    ${payloads.error && html`<p class="error" role="alert">Tool calls and the model's text could not be read: ${payloads.error}</p>`}
    <ol class="timeline" data-testid="timeline">
      ${[...turns.entries()].map(
        ([step, turnEvents]) => html`
          <li class="turn" data-step=${step}>
            <h3>Turn ${step}</h3>
            <${ModelText} turn=${payloads.turnsByStep.get(step)} />
            <ul>
              ${linesOf(turnEvents).map((line) => (line.type === 'tool'
                  ? html`<${ToolLine} key=${line.id} line=${line} call=${payloads.callsById.get(line.id)} durations=${durations} />`
                  : html`<${EventLine} key=${line.event.id} event=${line.event} durationMs=${durations.get(line.event.id)} />`))}
            </ul>
          </li>
        `,
      )}
    </ol>
  `;
}
