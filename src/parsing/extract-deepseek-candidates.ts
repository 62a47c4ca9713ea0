// Phase 1 for DeepSeek's tool calls, one candidate per call block, after the wrapper token:
//   V3 / R1 (vLLM vllm/entrypoints/openai/tool_parsers/deepseekv3_tool_parser.py):
//     <｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>NAME\n```json\n{…}\n```<｜tool▁call▁end｜>…<｜tool▁calls▁end｜>
//   V3.1 (deepseekv31_tool_parser.py; the V3.1 chat template):
//     <｜tool▁calls▁begin｜><｜tool▁call▁begin｜>NAME<｜tool▁sep｜>{…}<｜tool▁call▁end｜>…<｜tool▁calls▁end｜>
// A call block is a tag: it needs its end token (unclosed: no candidate), and the arguments'
// JSON is scanned so an end token inside a JSON string does not cut it short. The block's inner
// text is the raw candidate; phase 2 (decode-deepseek-call.ts) reads the header strictly.
import type { Candidate } from './candidate.js';
import { DEEPSEEK_CALLS_BEGIN, DEEPSEEK_CALL_BEGIN, DEEPSEEK_CALL_END, DEEPSEEK_SEPARATOR, DEEPSEEK_V3_CALL_TYPE } from './deepseek-tokens.js';
import { MAX_DECLARED_NAME_LENGTH, extractClosedTags, type OpenTag } from './extract-tag-candidates.js';
import { skipJsonWhitespace } from './json-scan.js';

const V3_FENCE_OPEN = '```json';

export function extractDeepSeekCandidates(text: string): Candidate[] {
  // vLLM reads calls only when the wrapper token is present; calls before it are not calls.
  const wrapperStart = text.indexOf(DEEPSEEK_CALLS_BEGIN);
  if (wrapperStart < 0) return [];
  return extractClosedTags({
    text,
    openPrefix: DEEPSEEK_CALL_BEGIN,
    matchOpenTag: (source, at) => (at < wrapperStart ? null : matchCallBlock(source, at)),
  });
}

function matchCallBlock(text: string, at: number): OpenTag {
  const payloadStart = at + DEEPSEEK_CALL_BEGIN.length;
  const open: OpenTag = { mode: 'deepseek', closeTag: DEEPSEEK_CALL_END, payloadStart, declaredName: null };
  // Bounded lookahead: the header is a short type or name, so a megabyte without a separator
  // costs a constant per block.
  const headerWindow = text.slice(payloadStart, payloadStart + MAX_DECLARED_NAME_LENGTH + DEEPSEEK_SEPARATOR.length);
  const separatorOffset = headerWindow.indexOf(DEEPSEEK_SEPARATOR);
  if (separatorOffset < 0) return { ...open, jsonStart: payloadStart };
  const afterSeparator = payloadStart + separatorOffset + DEEPSEEK_SEPARATOR.length;

  if (headerWindow.slice(0, separatorOffset) !== DEEPSEEK_V3_CALL_TYPE) {
    return { ...open, jsonStart: skipJsonWhitespace(text, afterSeparator) };
  }
  const nameWindow = text.slice(afterSeparator, afterSeparator + MAX_DECLARED_NAME_LENGTH + 1);
  const newline = nameWindow.indexOf('\n');
  const fenceStart = afterSeparator + newline + 1;
  if (newline < 0 || !text.startsWith(V3_FENCE_OPEN, fenceStart)) return { ...open, jsonStart: payloadStart };
  return { ...open, jsonStart: skipJsonWhitespace(text, fenceStart + V3_FENCE_OPEN.length), fenceBeforeClose: true };
}
