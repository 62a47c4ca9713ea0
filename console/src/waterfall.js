// The run waterfall on the run page: one row per model call, tool call and wait on a time axis
// (waterfall-layout.ts lays them out), the time to first token drawn apart from the generation,
// parallel tool calls of a turn overlapping on rows of their own with their lane, the phase changes
// and the run's ends as lines across, the critical path outlined. Each row names what it is and how
// long it took; the bar's note and its tooltip say the rest (tokens and cost, the verdict, the
// failure, the wait's reason). The waterfall scrolls inside its own box on a narrow screen.
import { html } from './html.js';
import { formatTokens, formatUsd } from './format.js';
import { formatDuration } from './format-time-span.js';
import { layoutWaterfall } from './waterfall-layout.js';

/** A tick spacing of 1, 2 or 5 × 10ⁿ ms giving about `count` ticks. */
function tickStep(totalMs, count = 6) {
  const raw = Math.max(totalMs / count, 1);
  const power = 10 ** Math.floor(Math.log10(raw));
  return [1, 2, 5, 10].map((factor) => factor * power).find((step) => step >= raw) ?? raw;
}

const percent = (value, totalMs) => `${totalMs > 0 ? (value / totalMs) * 100 : 0}%`;

function titleOf(bar) {
  switch (bar.kind) {
    case 'model':
      return `Turn ${bar.step} model call${bar.attempt > 1 ? ` #${bar.attempt}` : ''}`;
    case 'tool':
      return `${bar.label}${bar.lanes > 1 ? ` ∥${bar.lane + 1}` : ''}`;
    case 'user':
      return "user's answer";
    default:
      return bar.label;
  }
}

/** What a row's note says: the model call's timing, tokens and cost; the tool's verdict; the failure. */
function noteOf(bar, call) {
  const parts = [];
  if (bar.kind === 'model') {
    if (typeof bar.firstTokenMs === 'number') {
      parts.push(`first token ${formatDuration(bar.firstTokenMs)} · generation ${formatDuration(bar.endMs - bar.startMs - bar.firstTokenMs)}`);
    }
    if (typeof bar.inputTokens === 'number') parts.push(`${formatTokens(bar.inputTokens)} in / ${formatTokens(bar.outputTokens)} out`);
    if (typeof bar.costUsd === 'number') parts.push(formatUsd(bar.costUsd));
    if (bar.stopReason) parts.push(bar.stopReason);
  }
  if (bar.kind === 'tool') {
    parts.push(bar.status === 'running' ? 'running' : call?.verdict ? `${bar.status} · ${call.verdict}` : bar.status);
    if (bar.retries > 0) parts.push(`retried ${bar.retries}×`);
    if (typeof bar.queuedFromMs === 'number') parts.push(`queued ${formatDuration(bar.startMs - bar.queuedFromMs)}`);
  }
  if (bar.detail) parts.push(bar.detail);
  if (bar.failure) parts.push(bar.failure);
  if (bar.open) parts.push('still going');
  return parts.join(' · ');
}

function Row({ bar, totalMs, call }) {
  const durationMs = bar.endMs - bar.startMs;
  const shownDuration = bar.kind === 'tool' && typeof bar.durationMs === 'number' ? bar.durationMs : durationMs;
  const note = noteOf(bar, call);
  // A note after a bar in the right half would run off the track: it goes before the bar there.
  const noteSide =
    bar.startMs > totalMs * 0.55 ? { right: `calc(100% - ${percent(bar.startMs, totalMs)} + 4px)` } : { left: `calc(${percent(bar.endMs, totalMs)} + 4px)` };
  const classes = ['wf-bar', `wf-${bar.kind}`, `wf-${bar.status}`, bar.critical ? 'wf-critical' : '', bar.open ? 'wf-open' : ''].filter(Boolean).join(' ');
  return html`
    <div
      class="wf-row"
      data-testid="waterfall-bar"
      data-kind=${bar.kind}
      data-step=${bar.step}
      data-status=${bar.status}
      data-lane=${bar.lane}
      data-lanes=${bar.lanes}
      data-critical=${bar.critical ? 'true' : 'false'}
      data-duration-ms=${Math.round(shownDuration)}
      data-first-token-ms=${typeof bar.firstTokenMs === 'number' ? Math.round(bar.firstTokenMs) : undefined}
      data-tool=${bar.kind === 'tool' ? bar.label : undefined}
      data-tool-use-id=${bar.toolUseId}
    >
      <div class="wf-label" title=${titleOf(bar)}>
        <span class="wf-name">${titleOf(bar)}</span>
        <span class="wf-duration" data-testid="waterfall-duration">${formatDuration(shownDuration)}</span>
      </div>
      <div class="wf-track">
        ${typeof bar.queuedFromMs === 'number' &&
        html`<div class="wf-queued" style=${{ left: percent(bar.queuedFromMs, totalMs), width: percent(bar.startMs - bar.queuedFromMs, totalMs) }}></div>`}
        <div
          class=${classes}
          style=${{ left: percent(bar.startMs, totalMs), width: percent(durationMs, totalMs) }}
          title=${`${titleOf(bar)} · ${formatDuration(shownDuration)}${note ? ` · ${note}` : ''}`}
        >
          ${typeof bar.firstTokenMs === 'number' &&
          durationMs > 0 &&
          html`<span class="wf-ttft" style=${{ width: `${(bar.firstTokenMs / durationMs) * 100}%` }}></span>`}
        </div>
        ${note && html`<span class="wf-note" style=${noteSide}>${note}</span>`}
      </div>
    </div>
  `;
}

/** The run's waterfall; `running` stretches what is still going to now. */
export function Waterfall({ events, payloads, running, traceUrl }) {
  const layout = layoutWaterfall({ events, ...(running ? { nowMs: Date.now() } : {}) });
  if (layout.bars.length === 0) return null;
  const { totalMs } = layout;
  const callOf = (bar) => (bar.toolUseId ? payloads?.callsById?.get(bar.toolUseId) : undefined);
  const step = tickStep(totalMs);
  const ticks = [];
  for (let at = 0; at <= totalMs + 1e-6; at += step) ticks.push(at);
  return html`
    <section class="waterfall" data-testid="waterfall">
      <h2>
        Waterfall
        <span class="muted wf-summary" data-testid="waterfall-summary">
          ${formatDuration(totalMs)} · critical path ${formatDuration(layout.criticalMs)}
          ${traceUrl && html` · <a href=${traceUrl} target="_blank" rel="noopener noreferrer" data-testid="waterfall-trace-link">trace ↗</a>`}
        </span>
      </h2>
      <p class="wf-legend muted">
        <span><i class="wf-swatch wf-model"><i class="wf-ttft"></i></i> model call (lighter: to the first token)</span>
        <span><i class="wf-swatch wf-tool"></i> tool call</span>
        <span><i class="wf-swatch wf-wait"></i> wait</span>
        <span><i class="wf-swatch wf-user"></i> the user's answer</span>
        <span><i class="wf-swatch wf-critical-swatch"></i> critical path</span>
      </p>
      <div class="wf-scroll">
        <div class="wf-inner">
          <div class="wf-row wf-axis" aria-hidden="true">
            <div class="wf-label"></div>
            <div class="wf-track">
              ${ticks.map((at) => html`<span class="wf-tick" style=${{ left: percent(at, totalMs) }}>${formatDuration(at)}</span>`)}
            </div>
          </div>
          <div class="wf-body">
            ${layout.bars.map((bar) => html`<${Row} key=${bar.key} bar=${bar} totalMs=${totalMs} call=${callOf(bar)} />`)}
            <div class="wf-markers" aria-hidden="true">
              ${layout.markers.map(
                (marker) =>
                  html`<div
                    class=${`wf-marker wf-marker-${marker.kind}`}
                    style=${{ left: percent(marker.atMs, totalMs) }}
                    data-testid="waterfall-marker"
                    data-kind=${marker.kind}
                  >
                    <span>${marker.label}</span>
                  </div>`,
              )}
            </div>
          </div>
        </div>
      </div>
    </section>
  `;
}
