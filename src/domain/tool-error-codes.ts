// Every code a tool result may carry — a tool's ToolError, a call the turn or the tool worker
// answers without running it, an output that broke its contract — each documented and never
// reused for a different meaning: the model (and the runbook) act on the code, so its meaning is
// a contract. ToolError.code and a stored result's error_code are typed by this list, so a code
// missing here does not compile.

export const TOOL_ERROR_CODES = {
  // The tools (src/tools/, src/safety/workspace-path.ts).
  path_invalid: 'A workspace path broke a rule of normalizeWorkspacePath (traversal, encoding, hidden name, ...).',
  file_not_found: 'read_file or delete_file named a path the workspace does not hold.',
  file_too_large: 'One workspace file would exceed 512 KB.',
  workspace_file_limit: 'The workspace would hold more than 200 files.',
  workspace_too_large: 'The workspace would exceed 5 MB in total.',
  todo_duplicate_id: 'todo_write listed the same todo id twice.',
  todo_not_found: 'todo_complete named an id that is not in the current plan.',
  question_empty: 'ask_user was given a question that is only whitespace.',
  finish_gate_failed: 'finish_turn was called before the site was planned, built, deployed and published.',
  run_ended: 'The run already reached a terminal state, so the change was not applied (or the tool was not run).',
  deploy_empty_workspace: 'deploy was called with no files in the workspace.',
  deploy_not_found: 'publish or check_broken_images named a deploy id this run does not have.',
  url_invalid: 'A URL is not an absolute http(s) URL without credentials.',
  fetch_blocked: 'A URL (or a redirect target) is not on the fetch allowlist.',
  fetch_too_many_redirects: 'A fetch was redirected more than 5 times.',
  fetch_timeout: 'A fetch did not complete within 10 seconds.',
  fetch_failed: 'A fetch failed at the network level (DNS, connection refused, reset, TLS).',
  fetch_http_error: 'fetch_image got a non-2xx HTTP status.',
  mcp_tool_error: 'An MCP tool answered with isError: true; its text is quoted as data.',
  http_tool_rejected: "An HTTP tool's service refused the call (a 3xx or 4xx other than 408, 425 and 429); its answer is quoted as data.",
  chromium_unavailable: 'screenshot found no Chromium binary to run.',
  screenshot_timeout: 'Chromium did not produce a screenshot within BUILDFLEET_SCREENSHOT_TIMEOUT_MS (30 s by default).',
  screenshot_failed: 'Chromium could not start, could not load the page (or reach its main document), or returned no PNG.',
  // The write guards (src/tools/workspace/write-fence.ts, src/tools/run-tool-job.ts).
  killswitch_read_only:
    'A kill switch scope that covers the write is read_only (or half_open with its probe taken) ' +
    "— the fleet, the run's tenant, or an upstream the run read from; the message names it: the " +
    'write tool was refused, before it started or atomically at its Redis write. Reads still work.',
  safe_mode_skip_writes: 'The run is in skip_writes safe mode after an invalid tool output (degrade mode): write tools are refused.',
  // Calls answered without running the tool (src/agent/reject-call.ts, src/tools/run-tool-job.ts).
  tool_not_available: "The call named a tool that does not exist or is not in the tier of the run's phase.",
  tool_input_invalid: "The call's input does not match the tool's input schema; the message names each field.",
  finish_already_verified: 'The finish gate already passed: no more tool calls run, the model is asked for its summary.',
  // The tool worker (src/tools/run-tool-job.ts) and the turn (src/agent/turn-input.ts).
  tool_outcome_unknown: 'A write tool timed out after it started: running it again is not safe, so its outcome is unknown.',
  tool_infrastructure_error: 'The tool failed outside its own logic on every attempt (Redis, the worker); nothing says it ran.',
  job_attempts_exhausted: "The call's tool job failed for good, so the turn ran without a result from it.",
  ToolOutputInvalid: "The tool's output broke its output contract (error_reason says how); fail_closed ends the run, degrade goes on in safe mode.",
} as const satisfies Record<string, string>;

export type ToolErrorCode = keyof typeof TOOL_ERROR_CODES;

export function isToolErrorCode(code: string): code is ToolErrorCode {
  return Object.hasOwn(TOOL_ERROR_CODES, code);
}
