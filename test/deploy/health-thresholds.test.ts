// The health signals' alarm thresholds have one home (src/domain/health-thresholds.ts): the alert
// rules and the Grafana board that draw them must name the same numbers, as the console's overview
// does by importing them.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { PROJECT_ROOT } from '../../src/cli/spawn-role.js';
import { HEALTH_THRESHOLDS } from '../../src/domain/health-thresholds.js';

interface AlertRule {
  alert: string;
  expr: string;
}
const rules = (parseYaml(readFileSync(join(PROJECT_ROOT, 'deploy/prometheus/alerts.yml'), 'utf8')) as { groups: Array<{ rules: AlertRule[] }> }).groups.flatMap(
  (group) => group.rules,
);

interface Panel {
  title: string;
  fieldConfig?: { defaults?: { thresholds?: { steps: Array<{ color: string; value: number | null }> } } };
}
const panels = (JSON.parse(readFileSync(join(PROJECT_ROOT, 'deploy/grafana/dashboards/buildfleet.json'), 'utf8')) as { panels: Panel[] }).panels;

const ruleNamed = (name: string) => rules.find((rule) => rule.alert === name)?.expr ?? '';

describe('the health thresholds', () => {
  it('are the alert rules’ numbers', () => {
    expect(ruleNamed('BuildfleetToolUseRateLow')).toMatch(new RegExp(`\\) < ${HEALTH_THRESHOLDS.toolUseRateAlarmBelow}\\s`));
    expect(ruleNamed('BuildfleetRecoveryRateHigh')).toMatch(new RegExp(`\\) > ${HEALTH_THRESHOLDS.recoveryRateAlarmAbove}\\s*$`));
  });

  it('are the Grafana tool_use rate stat’s colours', () => {
    const steps = panels.find((panel) => panel.title === 'tool_use rate')?.fieldConfig?.defaults?.thresholds?.steps ?? [];
    expect(steps).toEqual([
      { color: 'red', value: null },
      { color: 'orange', value: HEALTH_THRESHOLDS.toolUseRateCriticalBelow },
      { color: 'green', value: HEALTH_THRESHOLDS.toolUseRateAlarmBelow },
    ]);
  });
});
