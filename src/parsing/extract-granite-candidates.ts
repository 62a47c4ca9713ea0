// Phase 1 for IBM Granite 3.0's tool calls: the special token `<|tool_call|>` followed by a JSON
// array of `{"name": N, "arguments": {…}}`, to the end of the output (vLLM
// vllm/entrypoints/openai/tool_parsers/granite_tool_parser.py with
// examples/tool_chat_template_granite.jinja). Granite 3.1 writes `<tool_call>[…]` without a
// closing tag instead; that plain-text opener is Hermes' tag, so it is left to the tool_call_tag
// mode (which needs `</tool_call>`) rather than guessed at.
import type { Candidate } from './candidate.js';
import { skipJsonWhitespace } from './json-scan.js';
import { listedCallCandidates } from './open-ended-candidates.js';
import { findOpenEndedSegments } from './open-ended-segments.js';

export const GRANITE_TOOL_CALL = '<|tool_call|>';

export function extractGraniteCandidates(text: string): Candidate[] {
  const segments = findOpenEndedSegments({
    text,
    marker: GRANITE_TOOL_CALL,
    readHeader: (at) => {
      const first = skipJsonWhitespace(text, at);
      return text.charCodeAt(first) === 0x5b /* [ */ ? { jsonStart: first, declaredName: null } : null;
    },
  });
  return segments.flatMap((segment) => listedCallCandidates({ text, segment, mode: 'granite', form: 'array' }));
}
