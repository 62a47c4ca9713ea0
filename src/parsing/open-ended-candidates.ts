// Candidates from one open-ended segment (open-ended-segments.ts) whose payload lists calls as
// JSON: one candidate per listed value when the payload is exactly that list, otherwise the whole
// payload as one candidate, which phase 2 then refuses with a precise reason (invalid_json for
// broken JSON or text after the list) rather than the call vanishing into no_candidate.
import type { Candidate } from './candidate.js';
import type { OpenEndedSegment } from './open-ended-segments.js';
import type { CandidateMode } from './parse-types.js';
import { splitJsonValues } from './split-json-values.js';

export function listedCallCandidates({
  text,
  segment,
  mode,
  form,
}: {
  text: string;
  segment: OpenEndedSegment;
  mode: CandidateMode;
  form: 'array' | 'semicolon_list';
}): Candidate[] {
  const spans = splitJsonValues({ text, start: segment.jsonStart, end: segment.end, form });
  if (spans === null) {
    return [{ mode, raw: text.slice(segment.jsonStart, segment.end), declaredName: null, start: segment.markerStart, end: segment.end }];
  }
  // The first call's span starts at the marker, so nothing between the two reads as a candidate.
  return spans.map((span, index) => ({
    mode,
    raw: text.slice(span.start, span.end),
    declaredName: null,
    start: index === 0 ? segment.markerStart : span.start,
    end: span.end,
  }));
}
