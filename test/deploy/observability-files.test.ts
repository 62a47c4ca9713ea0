// deploy/: the Prometheus alert rules and the Grafana dashboard parse (PromQL with Prometheus's
// own grammar) and use only the metrics the fleet exports (src/telemetry/metric-names.ts).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { PROJECT_ROOT } from '../../src/cli/spawn-role.js';
import { METRICS } from '../../src/telemetry/metric-names.js';
import { analyzePromql, isKnownSeries } from './support/promql.js';

interface AlertRule {
  alert: string;
  expr: string;
  for?: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
}

const alertGroups = (parseYaml(readFileSync(join(PROJECT_ROOT, 'deploy/prometheus/alerts.yml'), 'utf8')) as { groups: Array<{ name: string; rules: AlertRule[] }> }).groups;
const rules = alertGroups.flatMap((group) => group.rules);

interface Panel {
  title: string;
  type: string;
  datasource?: { uid: string };
  targets?: Array<{ expr: string }>;
  panels?: Panel[];
}
const dashboard = JSON.parse(readFileSync(join(PROJECT_ROOT, 'deploy/grafana/dashboards/buildfleet.json'), 'utf8')) as { uid: string; panels: Panel[] };
const panels = dashboard.panels.flatMap((panel) => [panel, ...(panel.panels ?? [])]);

describe('deploy/prometheus/alerts.yml', () => {
  it.each(rules.map((rule) => [rule.alert, rule] as const))('%s parses and selects only exported metrics', (_name, rule) => {
    const analysis = analyzePromql(rule.expr);
    expect(analysis.syntaxErrors).toEqual([]);
    expect(analysis.metricNames.length).toBeGreaterThan(0);
    expect(analysis.metricNames.filter((name) => !isKnownSeries(name))).toEqual([]);
    expect(rule.labels?.severity).toMatch(/^(warning|critical)$/);
    expect(rule.annotations?.summary).toBeTruthy();
  });

  it('alerts on each failure the fleet watches for', () => {
    const uses = (metric: string) => rules.filter((rule) => analyzePromql(rule.expr).metricNames.includes(metric));
    // tool_use rate below 95%
    expect(uses(METRICS.turnsWithToolUse).some((rule) => uses(METRICS.turnsExpectingTool).includes(rule) && /<\s*0\.95/.test(rule.expr))).toBe(true);
    // recovery rate above 5%
    expect(uses(METRICS.recoveries).some((rule) => />\s*0\.05/.test(rule.expr))).toBe(true);
    expect(uses(METRICS.toolOutputInvalid).length).toBeGreaterThan(0);
    expect(uses(METRICS.killSwitchState).some((rule) => /==\s*2/.test(rule.expr))).toBe(true);
    expect(uses(METRICS.modelRetries).length).toBeGreaterThan(0);
    expect(uses(METRICS.queueJobs).some((rule) => rule.expr.includes('deriv(') && rule.expr.includes('state="wait"') && rule.for === '10m')).toBe(true);
    // a queue shard without a model or tool worker
    expect(uses(METRICS.queueWorkers).some((rule) => /==\s*0/.test(rule.expr) && rule.expr.includes('shard'))).toBe(true);
    expect(new Set(rules.map((rule) => rule.alert)).size).toBe(rules.length);
  });
});

describe('deploy/grafana', () => {
  it('provisions the Prometheus datasource the dashboard uses, and the dashboards folder compose mounts', () => {
    const datasources = parseYaml(readFileSync(join(PROJECT_ROOT, 'deploy/grafana/provisioning/datasources/prometheus.yml'), 'utf8')) as {
      datasources: Array<{ uid: string; type: string; url: string }>;
    };
    const prometheus = datasources.datasources.find((datasource) => datasource.type === 'prometheus');
    expect(prometheus?.url).toBe('http://prometheus:9090');
    for (const panel of panels.filter((candidate) => candidate.targets)) expect(panel.datasource?.uid, panel.title).toBe(prometheus?.uid);
    const providers = parseYaml(readFileSync(join(PROJECT_ROOT, 'deploy/grafana/provisioning/dashboards/buildfleet.yml'), 'utf8')) as {
      providers: Array<{ options: { path: string } }>;
    };
    const compose = readFileSync(join(PROJECT_ROOT, 'docker-compose.yml'), 'utf8');
    expect(compose).toContain(`./deploy/grafana/dashboards:${providers.providers[0]?.options.path}:ro`);
  });

  it.each(panels.filter((panel) => panel.targets).map((panel) => [panel.title, panel] as const))('panel "%s" queries parse and select only exported metrics', (_title, panel) => {
    for (const target of panel.targets ?? []) {
      const analysis = analyzePromql(target.expr);
      expect(analysis.syntaxErrors, target.expr).toEqual([]);
      expect(analysis.metricNames.filter((name) => !isKnownSeries(name)), target.expr).toEqual([]);
    }
  });

  it('has the panels the fleet is run by', () => {
    const selecting = (metric: string) => panels.filter((panel) => (panel.targets ?? []).some((target) => analyzePromql(target.expr).metricNames.some((name) => name.startsWith(metric))));
    expect(selecting(METRICS.turnsWithToolUse).length).toBeGreaterThan(0);
    expect(selecting(METRICS.jsonInText).map((panel) => panel.type)).toContain('heatmap');
    expect(selecting(METRICS.runsEnded).length).toBeGreaterThan(0);
    const latency = selecting(METRICS.modelRequestDuration).flatMap((panel) => panel.targets ?? []).map((target) => target.expr);
    expect(latency.some((expr) => expr.includes('histogram_quantile(0.5'))).toBe(true);
    expect(latency.some((expr) => expr.includes('histogram_quantile(0.99'))).toBe(true);
    expect(selecting(METRICS.queueJobs).length).toBeGreaterThan(0);
    expect(selecting(METRICS.killSwitchState).length).toBeGreaterThan(0);
    expect(selecting(METRICS.modelRetries).some((panel) => (panel.targets ?? []).some((target) => target.expr.includes('by (class)')))).toBe(true);
    // Cost, cache hit ratio and tokens by class (docs/costs.md).
    expect(selecting(METRICS.modelCost).some((panel) => (panel.targets ?? []).some((target) => target.expr.includes('by (tenant)')))).toBe(true);
    expect(selecting(METRICS.modelTokens).some((panel) => (panel.targets ?? []).some((target) => target.expr.includes('by (class)')))).toBe(true);
    expect(selecting(METRICS.modelTokens).some((panel) => (panel.targets ?? []).some((target) => target.expr.includes('class="cache_read_input_tokens"') && target.expr.includes('/')))).toBe(true);
  });

  it('the PromQL checker rejects what it should', () => {
    expect(analyzePromql('sum(rate(buildfleet_turns_total[5m])').syntaxErrors.length).toBeGreaterThan(0);
    expect(isKnownSeries('buildfleet_no_such_metric_total')).toBe(false);
    expect(isKnownSeries(`${METRICS.modelRequestDuration}_bucket`)).toBe(true);
  });
});
