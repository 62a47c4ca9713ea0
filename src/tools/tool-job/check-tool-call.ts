// Before a tool runs (run-tool-job.ts): the run must be live, the tool known and its input valid;
// a write tool must pass skip_writes safe mode, the write guard and the kill switch's claim.
import { findAgent } from '../../agents/index.js';
import type { ToolErrorCode } from '../../domain/tool-error-codes.js';
import { formatZodIssues } from '../../domain/format-zod-issues.js';
import { isTerminal } from '../../domain/run-outcomes.js';
import { quoteUntrusted } from '../../domain/quote-untrusted.js';
import { describeRefusal } from '../../safety/kill-switch.js';
import { upstreamOf } from '../../safety/kill-switch-scope.js';
import { implementationOf } from '../agent-implementations.js';
import { fetchPolicyFor } from '../http/check-fetch-target.js';
import type { CheckedToolCall, ToolCallContext } from './tool-call-context.js';

/** The call, ready to run (a write claimed), or the refusal to record as its result. */
export async function checkToolCall({
  call,
}: {
  call: ToolCallContext;
}): Promise<
  { kind: 'ready'; checked: CheckedToolCall } | { kind: 'refused'; code: ToolErrorCode; message: string } | { kind: 'not_served'; agent: string; tool?: string }
> {
  const { deps, data, run } = call;
  const refused = (code: ToolErrorCode, message: string) => ({ kind: 'refused' as const, code, message });
  if (isTerminal(run.status)) return refused('run_ended', `The run is ${run.status}; the tool was not run.`);
  // A run of an agent this worker does not load goes back to the queue for one that does.
  const agent = findAgent(run.agent);
  if (!agent) return { kind: 'not_served', agent: run.agent };
  const toolName = data.name;
  // Nor is a call made from another definition of the tool run here by this one's rules (its effect,
  // schema, endpoint): the job waits for a worker of the version that offered it.
  if (data.toolFingerprint && agent.tools.get(toolName)?.fingerprint !== data.toolFingerprint) {
    return { kind: 'not_served', agent: run.agent, tool: toolName };
  }
  const definition = await implementationOf(agent, toolName, { fetchPolicy: fetchPolicyFor({ publicBaseUrl: deps.publicBaseUrl, config: deps.config }) });
  if (!definition) return refused('tool_not_available', `Unknown tool ${quoteUntrusted(data.name, { maxCharacters: 100 })}.`);
  const parsed = definition.inputSchema.safeParse(data.input);
  if (!parsed.success) {
    return refused('tool_input_invalid', formatZodIssues({ issues: parsed.error.issues, whole: '(input)' }));
  }
  const checked: CheckedToolCall = {
    toolName,
    definition,
    input: parsed.data,
    killSwitchSubject: {
      runId: data.runId,
      tenant: run.tenant,
      upstream: upstreamOf({ tool: data.name, input: parsed.data, sitesBaseUrl: deps.publicBaseUrl, serviceUrl: definition.serviceUrl }),
    },
    probe: { token: '', settled: false },
    claimedAtMs: null,
  };
  if (definition.writes) {
    if (run.safeMode === 'skip_writes') {
      return refused('safe_mode_skip_writes', 'The run is in skip_writes safe mode after an invalid tool output: write tools are refused.');
    }
    const refusal = deps.writeGuard ? await deps.writeGuard(run, data.name) : null;
    if (refusal) return refused('killswitch_read_only', refusal);
    if (deps.killSwitch) {
      // The fleet, the run's tenant and every upstream the run depends on (this write's own included).
      const claim = await deps.killSwitch.claimWrite({ ...checked.killSwitchSubject, liveUpstreams: call.liveUpstreams });
      if (claim.verdict === 'refuse') return refused('killswitch_read_only', describeRefusal(claim));
      checked.claimedAtMs = claim.redisTimeMs;
      if (claim.verdict === 'probe') checked.probe.token = claim.probeToken;
    }
  }
  return { kind: 'ready', checked };
}
