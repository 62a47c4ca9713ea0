// Records a validated outcome in the kill switch's windows (fleet, tenant, upstream) and reports
// on the run every scope it tripped or settled, each with its scope. The caller appends the
// events with its next write of the run (the ledger entry on the success path), not one XADD
// each: the kill switch's keys are fleet-wide and the run's carry its hash tag, so the two cannot
// share a script on Redis Cluster, but the events can ride along with the run's own.
import { type RunEvent } from '../../engine/index.js';
import type { CheckedToolCall, ToolCallContext } from './tool-call-context.js';

/** Records whether the call's output was valid; returns the events of the scopes it changed. */
export async function recordKillSwitchOutcome({
  call,
  checked,
  valid,
  reason = '',
}: {
  call: ToolCallContext;
  checked: CheckedToolCall;
  valid: boolean;
  reason?: string;
}): Promise<RunEvent[]> {
  const { deps, data } = call;
  if (!deps.killSwitch) return [];
  const probeToken = checked.probe.token;
  const record = await deps.killSwitch.recordOutcome({ tool: data.name, valid, reason, probeToken, ...checked.killSwitchSubject });
  if (probeToken) checked.probe.settled = true;
  const settings = deps.killSwitch.settings;
  return record.changes.map((change): RunEvent => {
    const scope = { scope: change.scope.kind, scope_id: change.scopeId };
    if (change.outcome === 'tripped') {
      return {
        run_id: data.runId,
        step: data.turn,
        event: 'killswitch-trip',
        tool: data.name,
        reason,
        ...scope,
        cause: change.cause,
        ...(change.tenants !== null ? { tenants: change.tenants } : {}),
        mode: 'read_only',
        window: change.window,
        window_ms: settings.windowMs,
        threshold: settings.threshold,
        min_volume: settings.minVolume,
        at_ms: change.atMs,
        summary: change.reason,
      };
    }
    return { run_id: data.runId, step: data.turn, event: 'killswitch-probe', tool: data.name, outcome: change.outcome, mode: change.mode, ...scope };
  });
}
