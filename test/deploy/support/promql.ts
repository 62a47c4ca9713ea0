// PromQL checks with Prometheus's own grammar (@prometheus-io/lezer-promql, the parser of the
// Prometheus UI): syntax errors, and the metric names an expression selects.
import { parser } from '@prometheus-io/lezer-promql';
import { METRICS } from '../../../src/telemetry/metric-names.js';

export interface PromqlAnalysis {
  /** Where the expression does not parse, as `offset: text`. */
  syntaxErrors: string[];
  metricNames: string[];
}

// Grafana's template variables are not PromQL; give them a value before parsing.
const GRAFANA_VARIABLES: Array<[RegExp, string]> = [
  [/\$__rate_interval|\$__interval|\$__range/g, '5m'],
];

/** Parses a PromQL expression (Grafana variables allowed) and lists the metrics it selects. */
export function analyzePromql(expression: string): PromqlAnalysis {
  const source = GRAFANA_VARIABLES.reduce((text, [pattern, value]) => text.replace(pattern, value), expression);
  const tree = parser.parse(source);
  const syntaxErrors: string[] = [];
  const metricNames = new Set<string>();
  tree.iterate({
    enter(node) {
      if (node.type.isError) syntaxErrors.push(`${node.from}: ${JSON.stringify(source.slice(Math.max(0, node.from - 20), node.to + 20))}`);
      if (node.name === 'Identifier' && node.node.parent?.name === 'VectorSelector') metricNames.add(source.slice(node.from, node.to));
    },
  });
  return { syntaxErrors, metricNames: [...metricNames] };
}

const HISTOGRAM_SERIES = /_(bucket|count|sum)$/;
// Series Prometheus itself adds to every target.
const PROMETHEUS_SERIES = new Set(['up', 'scrape_duration_seconds', 'scrape_samples_scraped']);

/** Whether a selected series is one the fleet exports (src/telemetry/metric-names.ts), a
 * histogram's _bucket/_count/_sum of one, or a series Prometheus adds itself. */
export function isKnownSeries(name: string): boolean {
  const exported = new Set<string>(Object.values(METRICS));
  return exported.has(name) || exported.has(name.replace(HISTOGRAM_SERIES, '')) || PROMETHEUS_SERIES.has(name);
}
