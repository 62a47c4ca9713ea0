// Whether a tool call the model made may run: the finish gate must not have passed yet (after it
// the run only waits for the summary: summary-request.ts), the tool must be in the turn's tier and
// its input must pass the tool's schema. A rejected call is answered with an is_error tool_result
// and never reaches a tool worker. The call's name is the model's (text recovery accepts any), so
// the message quotes it as data.
import { quoteUntrusted } from '../domain/quote-untrusted.js';
import { formatZodIssues } from '../domain/format-zod-issues.js';
import type { Agent } from '../agents/index.js';
import type { ToolErrorCode } from '../domain/tool-error-codes.js';
import type { PlannedCall } from './stop-reason-handler.js';

/** The rejection of a call (code and a message for the model), or null when it may run. */
export function rejectCall({
  agent,
  call,
  allowed,
  planMissing,
  finishVerified,
}: {
  /** The run's agent: its tools' input schemas. */
  agent: Agent;
  call: PlannedCall;
  allowed: readonly string[];
  /** The run is planning and has no plan yet. */
  planMissing: boolean;
  /** finish_turn passed the gate: the site is done, and the turn offers the tools of the phase it
   * passed in only to keep the cached prefix (summary-request.ts). */
  finishVerified: boolean;
}): { code: ToolErrorCode; message: string } | null {
  if (finishVerified) {
    return {
      code: 'finish_already_verified',
      message:
        `Tool ${quoteUntrusted(call.name, { maxCharacters: 100 })} was not run: finish_turn already passed, ` +
        `so the site is final and no tool runs any more. Write your final summary for the user as plain text.`,
    };
  }
  const tool = allowed.includes(call.name) ? agent.tools.get(call.name) : undefined;
  if (!tool) {
    // A thinking run is asked for the plan in words, not forced by tool_choice; one that skips it
    // is told what unlocks the build tools rather than only that they are missing.
    const hint = planMissing ? ' Write the plan with todo_write first: the build tools become available once it exists.' : '';
    return {
      code: 'tool_not_available',
      message: `Tool ${quoteUntrusted(call.name, { maxCharacters: 100 })} is not available in this phase. Available tools: ${allowed.join(', ')}.${hint}`,
    };
  }
  const parsed = tool.input.safeParse(call.input);
  if (!parsed.success) {
    return { code: 'tool_input_invalid', message: `Invalid input for ${call.name}: ${formatZodIssues({ issues: parsed.error.issues, whole: '(input)' })}` };
  }
  return null;
}
