// Phase 1 for functionary v3.2's `>>>NAME\n{…}` (MeetKai/functionary
// functionary/prompt_template/jinja_templates/v3.llama3.txt: "Respond in this format:
// >>>${recipient}\n${content}"; each call is `'>>>' + name + '\n' + arguments`, and `>>>all`
// is text for the user). `>>>` is plain text, not a special token, so this is a fallback: it
// needs tool intent and faces the size cap. The recipient must be followed at once by a line
// break and a JSON object, so a Python prompt (`>>> x = 1`) or a Markdown quote is not a call.
//
// Left out: the first call of a turn as the model generates it. The v3.2 template ends the
// prompt with `>>>`, so the output starts `NAME\n{…}` with no marker at all; a bare identifier
// line followed by JSON is too common in prose and code to gate safely. A server that echoes the
// generation prompt, or a model that writes the marker itself, gives the recognised form.
import type { Candidate } from './candidate.js';
import { MAX_DECLARED_NAME_LENGTH, isNameCharacter } from './extract-tag-candidates.js';
import { skipJsonWhitespace } from './json-scan.js';
import { findOpenEndedSegments, type PayloadHeader } from './open-ended-segments.js';

const RECIPIENT_MARKER = '>>>';
/** The recipient that means "text for the user". */
const USER_RECIPIENT = 'all';

export function extractFunctionaryCandidates(text: string): Candidate[] {
  const segments = findOpenEndedSegments({ text, marker: RECIPIENT_MARKER, readHeader: (at) => readRecipient(text, at) });
  return segments.map((segment) => ({
    mode: 'functionary',
    raw: text.slice(segment.jsonStart, segment.end),
    declaredName: segment.declaredName,
    start: segment.markerStart,
    end: segment.end,
  }));
}

function readRecipient(text: string, payloadStart: number): PayloadHeader | null {
  let index = payloadStart;
  while (index - payloadStart <= MAX_DECLARED_NAME_LENGTH && isNameCharacter(text.charCodeAt(index))) index += 1;
  if (index === payloadStart || text.charCodeAt(index) !== 0x0a /* \n */) return null;
  const declaredName = text.slice(payloadStart, index);
  if (declaredName === USER_RECIPIENT) return null;
  const jsonStart = skipJsonWhitespace(text, index + 1);
  return text.charCodeAt(jsonStart) === 0x7b /* { */ ? { jsonStart, declaredName } : null;
}
