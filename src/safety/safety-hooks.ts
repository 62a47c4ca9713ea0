// Observers the tool worker calls on the safety events of tool outputs, so metrics can be wired
// without this code knowing prom-client. Each maps to one metric of telemetry/metric-names.ts:
//   onToolOutputInvalid → METRICS.toolOutputInvalid {tool, reason}
//   onInjectionFlagged  → METRICS.toolOutputInjectionFlagged {tool}
//   onKillSwitchState   → METRICS.killSwitchState (killSwitchGaugeValue(mode))
//   onWriteRefused      → METRICS.writesRefused {tool}
import type { KillSwitchMode } from './kill-switch-mode.js';

export interface ToolSafetyHooks {
  /** reason is the full reason (`unexpected_content_type:text/html`); label metrics with
   * reasonCodeOf(reason) to keep their cardinality bounded. */
  onToolOutputInvalid?(tool: string, reason: string): void;
  onInjectionFlagged?(tool: string, patterns: readonly string[]): void;
  /** Called when a worker sees the mode change (a trip, a reset, half-open). */
  onKillSwitchState?(mode: KillSwitchMode): void;
  /** A write tool refused by the kill switch or by skip_writes safe mode. */
  onWriteRefused?(tool: string, cause: 'killswitch' | 'safe_mode'): void;
}
