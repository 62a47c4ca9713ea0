// Phase 1 for Mistral's tool calls, which follow the special token `[TOOL_CALLS]` and run to the
// end of the output (the model then emits </s>). Two shapes, by tokenizer version
// (mistral-common; vLLM vllm/entrypoints/openai/tool_parsers/mistral_tool_parser.py handles both):
//   before v11 (Mistral-7B-Instruct-v0.3, Nemo, v7):  [TOOL_CALLS][{"name": N, "arguments": {…}}, …]
//     (mistral-common renders the calls of earlier turns with an `"id"` of 9 alphanumerics, so
//     a model may repeat one);
//   v11 (Mistral-Small-3.2):  [TOOL_CALLS]NAME[CALL_ID]ID[ARGS]{…}
//   v13+ (Magistral-2509, Ministral-3, Devstral-2, Mistral-Medium-3.5, Small-4, and their HF
//     chat_template.jinja):   [TOOL_CALLS]NAME[ARGS]{…}, each further call restarting with
//     [TOOL_CALLS].
// The marker followed by anything else is prose that mentions it, not a candidate.
import type { Candidate } from './candidate.js';
import { MAX_DECLARED_NAME_LENGTH, isNameCharacter } from './extract-tag-candidates.js';
import { skipJsonWhitespace } from './json-scan.js';
import { listedCallCandidates } from './open-ended-candidates.js';
import { findOpenEndedSegments, type PayloadHeader } from './open-ended-segments.js';

export const MISTRAL_TOOL_CALLS = '[TOOL_CALLS]';
const CALL_ID = '[CALL_ID]';
const ARGS = '[ARGS]';
/** Mistral's call ids are 9 alphanumerics; a little slack, still bounded. */
const MAX_CALL_ID_LENGTH = 64;

export function extractMistralCandidates(text: string): Candidate[] {
  const segments = findOpenEndedSegments({ text, marker: MISTRAL_TOOL_CALLS, readHeader: (at) => readMistralHeader(text, at) });
  return segments.flatMap((segment): Candidate[] =>
    segment.declaredName === null
      ? listedCallCandidates({ text, segment, mode: 'mistral', form: 'array' })
      : [
          {
            mode: 'mistral',
            raw: text.slice(segment.jsonStart, segment.end),
            declaredName: segment.declaredName,
            start: segment.markerStart,
            end: segment.end,
          },
        ],
  );
}

function readMistralHeader(text: string, payloadStart: number): PayloadHeader | null {
  const first = skipJsonWhitespace(text, payloadStart);
  // `[TOOL_CALLS][TOOL_CALLS]…`: the first marker holds nothing; the second one is the call.
  if (text.startsWith(MISTRAL_TOOL_CALLS, first)) return null;
  if (text.charCodeAt(first) === 0x5b /* [ */) return { jsonStart: first, declaredName: null };

  let index = first;
  while (index - first <= MAX_DECLARED_NAME_LENGTH && isNameCharacter(text.charCodeAt(index))) index += 1;
  if (index === first || index - first > MAX_DECLARED_NAME_LENGTH) return null;
  const declaredName = text.slice(first, index);
  if (text.startsWith(CALL_ID, index)) {
    index += CALL_ID.length;
    const idStart = index;
    while (index - idStart <= MAX_CALL_ID_LENGTH && isAlphanumeric(text.charCodeAt(index))) index += 1;
    if (index === idStart || index - idStart > MAX_CALL_ID_LENGTH) return null;
  }
  if (!text.startsWith(ARGS, index)) return null;
  return { jsonStart: skipJsonWhitespace(text, index + ARGS.length), declaredName };
}

function isAlphanumeric(code: number): boolean {
  return (code >= 0x30 && code <= 0x39) || (code >= 0x41 && code <= 0x5a) || (code >= 0x61 && code <= 0x7a);
}
