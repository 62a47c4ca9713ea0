// One tool call, as the tool worker runs it: ledger first (a re-run returns the recorded
// result), then the run's state and the write guards (skip_writes safe mode, the kill switch),
// then the tool, then its output contract. Tool failures become is_error results, wrapped as
// untrusted data like outputs (src/domain/tool-result-envelope.ts); infrastructure failures go
// back to the queue: a `retry` or `defer` result, which the tool worker maps onto BullMQ.
//
// Output contracts (output/validate-tool-output.ts): every output is validated before the model
// sees it, and every validated outcome is recorded in the kill switch's window. An invalid output
// is answered by the tool's mode (its contract's default, or BUILDFLEET_TOOL_OUTPUT_MODES):
//   fail_closed  the run stops: failed with error code invalid_tool_output;
//   degrade      the run continues in skip_writes safe mode, with the tool's last-known-good
//                output (marked degraded: true) where one is cached, else an is_error result.
// Each step is a function of its own file under tool-job/, taking the call's context as one
// object; what a failure does is decided once, by decideToolFailure (decide-tool-failure.ts).
//
// Trace lines (the run's event stream):
//   {event:'tool-output-reject', tool, tool_use_id, ok:false, error:'ToolOutputInvalid', reason}
//   {event:'run-stop', reason:'invalid_tool_output'}                        fail_closed
//   {event:'run-stop', reason:'invalid_tool_output', safe_mode:'skip_writes'} degrade (the run goes on)
//   {event:'tool-output-injection-flag', tool, tool_use_id, patterns[, source:'error']}  flagged, not dropped
//   {event:'killswitch-trip', tool, reason, scope, scope_id, cause, window, ...}  this output tripped a scope
//   {event:'killswitch-probe', tool, outcome, mode, scope, scope_id}     this probe write settled a scope
import type { ToolJobData } from '../jobs/job-catalog.js';
import { runEventOf, type RunEventFields } from '../domain/run-events.js';
import { AgentNotServed } from '../agents/index.js';
import { checkToolCall } from './tool-job/check-tool-call.js';
import { recordToolError } from './tool-job/record-tool-error.js';
import { executeTool } from './tool-job/execute-tool.js';
import { recordToolOutput } from './tool-job/record-tool-output.js';
import type { ToolCallContext, ToolJobAttempt, ToolJobDependencies, ToolJobResult } from './tool-job/tool-call-context.js';

export type { ToolJobAttempt, ToolJobDependencies, ToolJobHooks, ToolJobResult } from './tool-job/tool-call-context.js';
export { TOOL_OUTPUT_INVALID_CODE } from './tool-job/answer-invalid-output.js';
export { INVALID_TOOL_OUTPUT_RUN_ERROR } from './decide-tool-failure.js';

/** Runs one tool call and records its one result, or says how the job goes back to the queue. */
export async function runToolJob(deps: ToolJobDependencies, data: ToolJobData, job: ToolJobAttempt): Promise<ToolJobResult> {
  const { store } = deps;
  // The recorded result (a re-run returns it) or the run, in one round trip.
  const loaded = await store.loadToolCall(data.runId, data.toolUseId);
  if (loaded === 'missing') return { kind: 'skipped', reason: 'run_missing' };
  if ('recorded' in loaded) return { kind: 'recorded', result: loaded.recorded, cached: true };
  const { run, liveUpstreams } = loaded;
  // The cast: Omit<RunEventFields[Name], 'tool' | 'tool_use_id'> and the two put back is the
  // event's fields, which TypeScript does not see under a type parameter.
  const event: ToolCallContext['event'] = (name, fields) =>
    runEventOf(data.runId, data.turn, name, { tool: data.name, tool_use_id: data.toolUseId, ...fields } as RunEventFields[typeof name]);
  const call: ToolCallContext = {
    deps,
    data,
    job,
    run,
    liveUpstreams,
    trail: { tool: data.name, phase: run.phase, turn: data.turn, toolUseId: data.toolUseId },
    event,
    emit: (name, fields) => store.appendEvent(event(name, fields)),
  };

  const checkedCall = await checkToolCall({ call });
  if (checkedCall.kind === 'not_served') {
    deps.logger.warn(
      { run_id: data.runId, tool: data.name, agent: checkedCall.agent, tool_definition_differs: checkedCall.tool !== undefined },
      'tool call of an agent (or a version of it) this worker does not serve: left for another worker',
    );
    return { kind: 'retry', error: new AgentNotServed(checkedCall.agent, checkedCall.tool) };
  }
  if (checkedCall.kind === 'refused') return recordToolError({ call, code: checkedCall.code, message: checkedCall.message });
  const { checked } = checkedCall;
  try {
    const executed = await executeTool({ call, checked });
    if (executed.kind === 'ended') return executed.result;
    return await recordToolOutput({ call, checked, output: executed.output, durationMs: executed.durationMs, startWrite: executed.startWrite });
  } finally {
    // A probe that produced no validated output (a tool error, a crash to be retried) hands the
    // half-open slot back so another write can probe.
    if (checked.probe.token && !checked.probe.settled) await deps.killSwitch?.releaseProbe(checked.probe.token).catch(() => undefined);
  }
}
