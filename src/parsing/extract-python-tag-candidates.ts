// Phase 1 for Llama 3.x's `<|python_tag|>{"name": N, "parameters": {…}}`: the special token the
// Llama 3.1/3.2 templates put before a tool call, followed by the JSON call to the end of the
// output; several calls are separated by `;` (vLLM
// vllm/entrypoints/openai/tool_parsers/llama_tool_parser.py: "depending on the prompt format the
// Llama model may or may not prefix the output with the <|python_tag|> token"). Without the
// token the same object is the `json` fallback. `<|python_tag|>` followed by code (Llama 3.1's
// built-in code interpreter, `brave_search.call(…)`) is not a call of ours: not a candidate.
import type { Candidate } from './candidate.js';
import { skipJsonWhitespace } from './json-scan.js';
import { listedCallCandidates } from './open-ended-candidates.js';
import { findOpenEndedSegments } from './open-ended-segments.js';

export const LLAMA_PYTHON_TAG = '<|python_tag|>';

export function extractPythonTagCandidates(text: string): Candidate[] {
  const segments = findOpenEndedSegments({
    text,
    marker: LLAMA_PYTHON_TAG,
    readHeader: (at) => {
      const first = skipJsonWhitespace(text, at);
      return text.charCodeAt(first) === 0x7b /* { */ ? { jsonStart: first, declaredName: null } : null;
    },
  });
  return segments.flatMap((segment) => listedCallCandidates({ text, segment, mode: 'python_tag', form: 'semicolon_list' }));
}
