// Phase 1 for the tag formats, which are intent by themselves:
//   <tool name="NAME">{…}</tool>                     (primary; the payload is the arguments)
//   <tool_use>{"name": …, "input": {…}}</tool_use>
//   <tool_call>{"name": …, "arguments": {…}}</tool_call>
// One forward pass. When a payload's JSON starts with `{`, the JSON scanner finds its end so a
// closing tag written inside a JSON string (a file about tool calls) does not cut the payload
// short; otherwise the payload runs to the first closing tag. A tag with no closing tag is not a
// candidate. Linear time: the open-tag search only moves forward, each close-tag search resumes
// where the previous one stopped, and no character is JSON-scanned twice (the frontier).
// `extractClosedTags` is the same pass for any opening/closing pair; the model-family formats
// with closing markers (`<function=…>`, DeepSeek's call tokens) use it too.
import type { Candidate } from './candidate.js';
import { createForwardFinder } from './forward-finder.js';
import { scanJsonValue, skipJsonWhitespace } from './json-scan.js';
import type { CandidateMode } from './parse-types.js';

const OPEN_PREFIX = '<tool';
export const MAX_DECLARED_NAME_LENGTH = 128;

export interface OpenTag {
  mode: CandidateMode;
  closeTag: string;
  payloadStart: number;
  declaredName: string | null;
  /** Where the payload's JSON begins when it does not begin the payload (DeepSeek puts a header
   * first); default: the payload's first non-whitespace character. */
  jsonStart?: number;
  /** A Markdown fence (```) stands between the JSON and the closing tag (DeepSeek V3). */
  fenceBeforeClose?: boolean;
}

export function extractTagCandidates(text: string): Candidate[] {
  return extractClosedTags({ text, openPrefix: OPEN_PREFIX, matchOpenTag });
}

/** Every `openPrefix…closeTag` span `matchOpenTag` accepts, as a candidate. */
export function extractClosedTags({
  text,
  openPrefix,
  matchOpenTag: matchOpen,
}: {
  text: string;
  openPrefix: string;
  matchOpenTag: (text: string, at: number) => OpenTag | null;
}): Candidate[] {
  const candidates: Candidate[] = [];
  const closeFinder = createForwardFinder(text);
  let position = 0;
  let jsonFrontier = 0;

  for (;;) {
    const tagStart = text.indexOf(openPrefix, position);
    if (tagStart < 0) break;
    const open = matchOpen(text, tagStart);
    if (open === null) {
      position = tagStart + openPrefix.length;
      continue;
    }

    // No closing tag anywhere after it: unclosed, not a candidate, and no JSON worth scanning.
    // Later tags (of another kind) may still be complete.
    const firstClose = closeFinder(open.closeTag, open.payloadStart);
    if (firstClose < 0) {
      position = open.payloadStart;
      continue;
    }

    let closeStart = firstClose;
    const payloadFirst = open.jsonStart ?? skipJsonWhitespace(text, open.payloadStart);
    if (text.charCodeAt(payloadFirst) === 0x7b /* { */ && payloadFirst >= jsonFrontier) {
      const scan = scanJsonValue({ text, start: payloadFirst });
      jsonFrontier = Math.max(jsonFrontier, scan.end);
      if (scan.ok) {
        let afterJson = skipJsonWhitespace(text, scan.end);
        if (open.fenceBeforeClose && text.startsWith('```', afterJson)) afterJson = skipJsonWhitespace(text, afterJson + 3);
        if (text.startsWith(open.closeTag, afterJson)) closeStart = afterJson;
      }
    }

    const end = closeStart + open.closeTag.length;
    candidates.push({
      mode: open.mode,
      raw: text.slice(open.payloadStart, closeStart),
      declaredName: open.declaredName,
      start: tagStart,
      end,
    });
    position = end;
  }
  return candidates;
}

function matchOpenTag(text: string, at: number): OpenTag | null {
  if (text.startsWith('<tool_use>', at)) {
    return { mode: 'tool_use_tag', closeTag: '</tool_use>', payloadStart: at + 10, declaredName: null };
  }
  if (text.startsWith('<tool_call>', at)) {
    return { mode: 'tool_call_tag', closeTag: '</tool_call>', payloadStart: at + 11, declaredName: null };
  }
  // <tool name="NAME">: at least one space, double quotes, a bounded name of safe characters; the
  // bound keeps a megabyte of `<tool name="` from scanning ahead at every occurrence.
  let index = at + OPEN_PREFIX.length;
  if (!isSpaceOrTab(text.charCodeAt(index))) return null;
  while (isSpaceOrTab(text.charCodeAt(index))) index += 1;
  if (!text.startsWith('name="', index)) return null;
  index += 6;
  const nameStart = index;
  while (index < text.length && index - nameStart <= MAX_DECLARED_NAME_LENGTH && isNameCharacter(text.charCodeAt(index))) {
    index += 1;
  }
  if (text.charCodeAt(index) !== 0x22 /* " */ || index === nameStart) return null;
  const declaredName = text.slice(nameStart, index);
  index += 1;
  while (isSpaceOrTab(text.charCodeAt(index))) index += 1;
  if (text.charCodeAt(index) !== 0x3e /* > */) return null;
  return { mode: 'tag', closeTag: '</tool>', payloadStart: index + 1, declaredName };
}

export function isSpaceOrTab(code: number): boolean {
  return code === 0x20 || code === 0x09;
}

export function isNameCharacter(code: number): boolean {
  return (
    (code >= 0x30 && code <= 0x39) ||
    (code >= 0x41 && code <= 0x5a) ||
    (code >= 0x61 && code <= 0x7a) ||
    code === 0x5f /* _ */ ||
    code === 0x2d /* - */ ||
    code === 0x2e /* . */
  );
}
