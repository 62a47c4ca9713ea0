// One chart of the overview page, drawn by uPlot (npm `uplot`, MIT): a time axis of the range's
// buckets and one line per series, with its legend, title and unit. A threshold is a series of its
// own (a dashed constant line), so the legend names it beside the figures it judges. The chart
// takes its container's width and follows it (a ResizeObserver), so it fits a phone's screen.
// Without a value to draw it shows its empty state instead of an empty frame.
import { useEffect, useRef } from 'preact/hooks';
import uPlot from 'uplot';
import { html } from './html.js';

/** Colours of the series, in order: distinguishable, and the first four match the run statuses. */
export const SERIES_COLOURS = ['#1c7c3a', '#b42318', '#a15c00', '#667085', '#2453c4', '#7a3fb8', '#0f8a8a', '#c2417a', '#5b6b00', '#333d4f'];
const THRESHOLD_COLOURS = { alarm: '#b42318', critical: '#7a0f0a' };
const CHART_HEIGHT = 200;

/** A value as the axis and the legend show it, in the chart's unit. */
function formatterOf(unit) {
  const shown = (value) => {
    if (unit === '%') return `${(value * 100).toFixed(value < 0.1 && value > 0 ? 1 : 0)}%`;
    if (unit === 'USD') return `$${value < 1 && value > 0 ? value.toFixed(4) : value.toFixed(2)}`;
    if (unit === 'ms') return value >= 1000 ? `${(value / 1000).toFixed(1)} s` : `${Math.round(value)} ms`;
    return String(Math.round(value * 100) / 100);
  };
  return (value) => (value === null || value === undefined ? '–' : shown(value));
}

/** Whether there is anything to draw. A share's 0 is a value (no JSON in text, no recovery: the
 * healthy reading), its null a bucket without turns; a count's 0 is nothing to show. */
function hasValues(series, unit) {
  return series.some((entry) => entry.values.some((value) => value !== null && value !== undefined && (unit === '%' || value !== 0)));
}

/**
 * @param {object} props
 * @param {string} props.title
 * @param {string} props.unit '%', 'USD', 'ms' or a plural noun (runs, trips…)
 * @param {number[]} props.times each bucket's start, in seconds since the epoch
 * @param {{ label: string, values: (number|null)[] }[]} props.series
 * @param {{ label: string, value: number, kind: 'alarm' | 'critical' }[]} [props.thresholds]
 * @param {string} props.empty what the empty state says
 * @param {string} props.testId
 */
export function OverviewChart({ title, unit, times, series, thresholds = [], empty, testId }) {
  const container = useRef(null);
  const drawn = hasValues(series, unit);
  useEffect(() => {
    if (!drawn || !container.current) return undefined;
    const format = formatterOf(unit);
    const width = Math.max(container.current.clientWidth, 200);
    const options = {
      width,
      height: CHART_HEIGHT,
      // Local time on the axis, as the rest of the console shows times.
      tzDate: (seconds) => new Date(seconds * 1000),
      // From 0, with headroom; a share at most 100%, and at least 10% tall so a few percent reads as few.
      scales: {
        x: { time: true },
        y: { range: (_plot, _min, max) => (unit === '%' ? [0, Math.min(1, Math.max(0.1, max * 1.25))] : [0, max > 0 ? max * 1.1 : 1]) },
      },
      // Room for the two-line time labels (a day under an hour) of the longer ranges.
      axes: [{ size: 50 }, { values: (_plot, ticks) => ticks.map(format), size: 58 }],
      cursor: { drag: { x: false, y: false } },
      series: [
        { label: 'time', value: (_plot, seconds) => (seconds === null ? '–' : new Date(seconds * 1000).toLocaleString()) },
        ...series.map((entry, index) => ({
          label: entry.label,
          stroke: SERIES_COLOURS[index % SERIES_COLOURS.length],
          width: 2,
          spanGaps: false,
          // Always drawn: a bucket with data between empty ones is one point, not a line.
          points: { show: true, size: 5 },
          value: (_plot, value) => format(value),
        })),
        ...thresholds.map((threshold) => ({
          label: threshold.label,
          stroke: THRESHOLD_COLOURS[threshold.kind],
          width: 1.5,
          dash: [6, 4],
          points: { show: false },
          value: () => format(threshold.value),
        })),
      ],
    };
    const data = [times, ...series.map((entry) => entry.values), ...thresholds.map((threshold) => times.map(() => threshold.value))];
    const plot = new uPlot(options, data, container.current);
    const resize = new ResizeObserver(() => {
      const next = Math.max(container.current?.clientWidth ?? width, 200);
      if (next !== plot.width) plot.setSize({ width: next, height: CHART_HEIGHT });
    });
    resize.observe(container.current);
    return () => {
      resize.disconnect();
      plot.destroy();
    };
  }, [drawn, unit, times, series, thresholds]);

  return html`
    <figure class="chart" data-testid=${testId} data-drawn=${drawn ? 'true' : 'false'}>
      <figcaption><b>${title}</b> <span class="muted">(${unit})</span></figcaption>
      ${drawn ? html`<div class="chart-plot" ref=${container}></div>` : html`<p class="chart-empty muted" data-testid="chart-empty">${empty}</p>`}
    </figure>
  `;
}
