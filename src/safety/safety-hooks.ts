// Observers the tool worker calls on the safety events of tool outputs, so metrics can be wired
// without this code knowing prom-client. Each maps to one metric of telemetry/metric-names.ts:
//   onToolOutputInvalid     → METRICS.toolOutputInvalid {tool, reason}
//   onInjectionFlagged      → METRICS.toolOutputInjectionFlagged {tool}
//   onKillSwitchState       → METRICS.killSwitchState (killSwitchGaugeValue(mode)), the fleet scope
//   onKillSwitchTrip        → METRICS.killSwitchTrips {scope, cause}
//   onKillSwitchScopeSource → METRICS.killSwitchScopes {scope, mode}, read from Redis at scrape time
//   onWriteRefused          → METRICS.writesRefused {tool}
import type { KillSwitchMode, KillSwitchTripCause } from './kill-switch-mode.js';
import type { KillSwitchScopeKind } from './kill-switch-scope.js';

/** Scopes of one kind in one non-read_write mode. */
export interface KillSwitchScopeCount {
  scope: KillSwitchScopeKind;
  mode: Exclude<KillSwitchMode, 'read_write'>;
  count: number;
}

export interface KillSwitchScopeSource {
  /** Every scope that is read_only or half_open now, counted by kind and mode (one Redis read). */
  countScopes(): Promise<KillSwitchScopeCount[]>;
}

export interface ToolSafetyHooks {
  /** reason is the full reason (`unexpected_content_type:text/html`); label metrics with
   * reasonCodeOf(reason) to keep their cardinality bounded. */
  onToolOutputInvalid?(tool: string, reason: string): void;
  onInjectionFlagged?(tool: string, patterns: readonly string[]): void;
  /** Called when a worker sees the fleet scope's mode change (a trip, a reset, half-open). */
  onKillSwitchState?(mode: KillSwitchMode): void;
  /** A scope tripped on an output this worker recorded (each trip is reported by one worker).
   * Labelled by the scope's kind, not its id: tenants and hosts would make the label set unbounded. */
  onKillSwitchTrip?(scope: KillSwitchScopeKind, cause: KillSwitchTripCause): void;
  /** Given the switch when it is created, so an exporter can count tripped scopes at scrape time. */
  onKillSwitchScopeSource?(source: KillSwitchScopeSource): void;
  /** A write tool refused by the kill switch or by skip_writes safe mode. */
  onWriteRefused?(tool: string, cause: 'killswitch' | 'safe_mode'): void;
}
