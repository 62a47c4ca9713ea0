// Every code a tool may put on a ToolError, each documented and never reused for a different
// meaning: the model (and the runbook) act on the code, so its meaning is a contract.
// tool-error-codes.test.ts fails when a tool throws a code missing here or a code here is unused.

export const TOOL_ERROR_CODES = {
  path_invalid: 'A workspace path broke a rule of normalizeWorkspacePath (traversal, encoding, hidden name, ...).',
  file_not_found: 'read_file or delete_file named a path the workspace does not hold.',
  file_too_large: 'One workspace file would exceed 512 KB.',
  workspace_file_limit: 'The workspace would hold more than 200 files.',
  workspace_too_large: 'The workspace would exceed 5 MB in total.',
  todo_duplicate_id: 'todo_write listed the same todo id twice.',
  todo_not_found: 'todo_complete named an id that is not in the current plan.',
  question_empty: 'ask_user was given a question that is only whitespace.',
  finish_gate_failed: 'finish_turn was called before the site was planned, built, deployed and published.',
  run_ended: 'The run already reached a terminal state, so the change was not applied.',
  deploy_empty_workspace: 'deploy was called with no files in the workspace.',
  deploy_not_found: 'publish or check_broken_images named a deploy id this run does not have.',
  url_invalid: 'A URL is not an absolute http(s) URL without credentials.',
  fetch_blocked: 'A URL (or a redirect target) is not on the fetch allowlist.',
  fetch_too_many_redirects: 'A fetch was redirected more than 5 times.',
  fetch_timeout: 'A fetch did not complete within 10 seconds.',
  fetch_failed: 'A fetch failed at the network level (DNS, connection refused, reset, TLS).',
  fetch_http_error: 'fetch_image got a non-2xx HTTP status.',
  chromium_unavailable: 'screenshot found no Chromium binary to run.',
  screenshot_timeout: 'Chromium did not produce a screenshot within 30 seconds.',
  screenshot_failed: 'Chromium could not start, could not load the page (or reach its main document), or returned no PNG.',
  killswitch_read_only: 'A kill switch scope that covers the write is read_only (or half_open with its probe taken) — the fleet, the run\'s tenant, or an upstream the run read from; the message names it: the write tool was refused, before it started or atomically at its Redis write. Reads still work.',
  safe_mode_skip_writes: 'The run is in skip_writes safe mode after an invalid tool output (degrade mode): write tools are refused.',
} as const satisfies Record<string, string>;

export type ToolErrorCode = keyof typeof TOOL_ERROR_CODES;
