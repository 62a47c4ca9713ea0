// The text tool-call parser: phase 1 extracts candidates by string scanning, phase 2 validates
// the single one. Linear in the text, so a megabyte of adversarial output parses in milliseconds.
import { isFallbackMode } from './candidate.js';
import { extractCandidates } from './extract-candidates.js';
import { looksLikeJsonToolCall } from './json-tool-call-lookalike.js';
import { REASON_MULTIPLE_CANDIDATES, REASON_NO_CANDIDATE, REASON_NO_TOOL_INTENT } from './parse-reasons.js';
import type { ParseOptions, ParseResult } from './parse-types.js';
import { validateCandidate } from './validate-candidate.js';

/** Recovers at most one tool call a model wrote as text, with the telemetry of how it went. */
export function parseToolCallsFromText(text: string, options: ParseOptions): ParseResult {
  const extraction = extractCandidates({ text, toolIntent: options.toolIntent });
  const { candidates } = extraction;

  const result: ParseResult = {
    calls: [],
    parse_mode: 'none',
    candidate_count: candidates.length,
    fallback_used: false,
    schema_validation: 'not_run',
    reason: null,
    fence_only_stop: extraction.fenceOnlyStop,
    json_in_text: false,
  };

  const [candidate, ...others] = candidates;
  if (candidate === undefined) {
    result.reason = extraction.fallbacksWithoutIntent > 0 ? REASON_NO_TOOL_INTENT : REASON_NO_CANDIDATE;
  } else if (others.length > 0) {
    result.reason = REASON_MULTIPLE_CANDIDATES;
  } else {
    const verdict = validateCandidate({ candidate, options });
    result.parse_mode = candidate.mode;
    result.fallback_used = isFallbackMode(candidate.mode);
    result.schema_validation = verdict.schemaValidation;
    result.reason = verdict.reason;
    if (verdict.call) result.calls.push(verdict.call);
  }

  result.json_in_text = result.calls.length === 0 && looksLikeJsonToolCall(extraction.visibleText);
  return result;
}
