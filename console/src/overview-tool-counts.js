// The health signals by tool count (the seeds' heatmap): one row per number of tools offered in the
// request, each rate's cell coloured by its alarm threshold — tool_use_rate below its alarm (orange)
// or its critical line (red), a recovery rate above its alarm — so a drop that grows with the tool
// list reads at a glance. Rates with nothing to divide by show a dash.
import { html } from './html.js';

const percent = (rate) => (rate === null ? '–' : `${(rate * 100).toFixed(1)}%`);

function toolUseTone(rate, thresholds) {
  if (rate === null) return '';
  if (rate < thresholds.toolUseRateCriticalBelow) return 'heat-bad';
  return rate < thresholds.toolUseRateAlarmBelow ? 'heat-warn' : 'heat-ok';
}

export function ToolCountTable({ rows, thresholds }) {
  return html`
    <h2>By tool count</h2>
    ${rows.length === 0
      ? html`<p class="muted" data-testid="tool-counts-empty">No turn archived in this range.</p>`
      : html`<div class="runs-scroll">
          <table class="runs heat" data-testid="tool-counts">
            <thead>
              <tr>
                <th class="number">Tools</th>
                <th class="number">Turns</th>
                <th class="number">Expecting a call</th>
                <th class="number">tool_use_rate</th>
                <th class="number">json_in_text_rate</th>
                <th class="number">Fence-only stops</th>
                <th class="number">Recovery rate</th>
              </tr>
            </thead>
            <tbody>
              ${rows.map(
                (row) => html`<tr data-tool-count=${row.toolCount ?? 'unknown'}>
                  <td class="number">${row.toolCount ?? '?'}</td>
                  <td class="number">${row.turns}</td>
                  <td class="number">${row.turnsExpectingTool}</td>
                  <td class=${`number ${toolUseTone(row.toolUseRate, thresholds)}`}>${percent(row.toolUseRate)}</td>
                  <td class="number">${percent(row.jsonInTextRate)}</td>
                  <td class="number">${row.fenceOnlyStops}</td>
                  <td class=${`number ${row.recoveryRate === null ? '' : row.recoveryRate > thresholds.recoveryRateAlarmAbove ? 'heat-warn' : 'heat-ok'}`}>
                    ${percent(row.recoveryRate)}
                  </td>
                </tr>`,
              )}
            </tbody>
          </table>
        </div>`}
  `;
}
