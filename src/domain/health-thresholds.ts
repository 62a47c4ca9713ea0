// The alarm thresholds of the fleet's health signals, in one place: the Prometheus alert rules
// (deploy/prometheus/alerts.yml), the Grafana board (deploy/grafana/dashboards/buildfleet.json) and
// the console's overview draw the same lines. test/deploy/health-thresholds.test.ts fails when a rule
// or a panel names another number than these.
// No zod here: the run console's bundle imports this module.

export const HEALTH_THRESHOLDS = {
  /** Of the turns where the runtime expected a tool call, the share that ended in a native tool_use:
   * below this is an alarm (BuildfleetToolUseRateLow; the Grafana stat turns orange). */
  toolUseRateAlarmBelow: 0.95,
  /** The Grafana stat turns red below this share: the model writes calls as text or stops early. */
  toolUseRateCriticalBelow: 0.9,
  /** Tool calls recovered from text per turn: above this is an alarm (BuildfleetRecoveryRateHigh). */
  recoveryRateAlarmAbove: 0.05,
} as const;
