// Phase 1 for `<function=NAME>{…}</function>`: Llama 3.1's user-defined custom tool calling
// format (Meta's Llama 3.1 model card, "User-defined Custom tool calling": "start with
// <function= and end with </function>"), which functionary-small-v3.1 uses (MeetKai/functionary
// functionary/prompt_template/jinja_templates/v3-llama3.1.txt). A tag: it needs its closing tag,
// and the payload is the arguments object.
import type { Candidate } from './candidate.js';
import { MAX_DECLARED_NAME_LENGTH, extractClosedTags, isNameCharacter, type OpenTag } from './extract-tag-candidates.js';

const OPEN_PREFIX = '<function=';
const CLOSE_TAG = '</function>';

export function extractFunctionTagCandidates(text: string): Candidate[] {
  return extractClosedTags({ text, openPrefix: OPEN_PREFIX, matchOpenTag: matchFunctionTag });
}

function matchFunctionTag(text: string, at: number): OpenTag | null {
  const nameStart = at + OPEN_PREFIX.length;
  let index = nameStart;
  while (index - nameStart <= MAX_DECLARED_NAME_LENGTH && isNameCharacter(text.charCodeAt(index))) index += 1;
  if (index === nameStart || text.charCodeAt(index) !== 0x3e /* > */) return null;
  return { mode: 'function_tag', closeTag: CLOSE_TAG, payloadStart: index + 1, declaredName: text.slice(nameStart, index) };
}
