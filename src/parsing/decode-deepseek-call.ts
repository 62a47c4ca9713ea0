// Phase 2 for a DeepSeek call block's inner text (between <｜tool▁call▁begin｜> and
// <｜tool▁call▁end｜>): the tool name and the text of its arguments, in exactly one of the two
// documented shapes (extract-deepseek-candidates.ts):
//   V3 / R1:  function<｜tool▁sep｜>NAME\n```json\n{…}\n```
//   V3.1:     NAME<｜tool▁sep｜>{…}
import { DEEPSEEK_SEPARATOR, DEEPSEEK_V3_CALL_TYPE } from './deepseek-tokens.js';
import { REASON_INVALID_JSON, REASON_MISSING_ARGUMENTS, REASON_MISSING_NAME } from './parse-reasons.js';

export type SplitDeepSeekCall = { ok: true; name: string; argumentsText: string } | { ok: false; reason: string };

const FENCE_OPEN = '```json';
const FENCE_CLOSE = '```';

export function splitDeepSeekCall(inner: string): SplitDeepSeekCall {
  const separator = inner.indexOf(DEEPSEEK_SEPARATOR);
  if (separator < 0) return { ok: false, reason: REASON_MISSING_NAME };
  const header = inner.slice(0, separator);
  const rest = inner.slice(separator + DEEPSEEK_SEPARATOR.length);

  if (header !== DEEPSEEK_V3_CALL_TYPE) {
    if (header === '') return { ok: false, reason: REASON_MISSING_NAME };
    return { ok: true, name: header, argumentsText: rest };
  }

  const newline = rest.indexOf('\n');
  const name = (newline < 0 ? rest : rest.slice(0, newline)).trim();
  if (name === '') return { ok: false, reason: REASON_MISSING_NAME };
  if (newline < 0) return { ok: false, reason: REASON_MISSING_ARGUMENTS };
  // The arguments sit in a ```json fence; the fence lines may carry surrounding whitespace only.
  const body = rest.slice(newline + 1).trim();
  if (!body.startsWith(FENCE_OPEN) || !body.endsWith(FENCE_CLOSE) || body.length < FENCE_OPEN.length + FENCE_CLOSE.length) {
    return { ok: false, reason: REASON_INVALID_JSON };
  }
  return { ok: true, name, argumentsText: body.slice(FENCE_OPEN.length, body.length - FENCE_CLOSE.length) };
}
