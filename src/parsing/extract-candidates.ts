// Phase 1: every candidate tool call in a model's text, as raw strings with spans. String
// scanning only; nothing here decides whether a call may run (that is validate-candidate.ts).
import type { Candidate } from './candidate.js';
import { extractFallbackCandidates } from './extract-fallback-candidates.js';
import { extractFamilyCandidates } from './extract-family-candidates.js';
import { extractFunctionaryCandidates } from './extract-functionary-candidates.js';
import { extractTagCandidates } from './extract-tag-candidates.js';
import { findFencedBlocks } from './fenced-blocks.js';
import { maskToolIntentMarkers } from './tool-intent-marker.js';
import { extractVisibleText } from './visible-text.js';

export interface CandidateExtraction {
  /** Tags and family special tokens always; fallbacks only with intent. Candidates that start
   * inside another are left out. */
  candidates: Candidate[];
  intentSignalled: boolean;
  /** Fallback candidates that were left out because no intent was signalled. */
  fallbacksWithoutIntent: number;
  visibleText: string;
  fenceOnlyStop: boolean;
}

export function extractCandidates({ text, toolIntent }: { text: string; toolIntent: boolean }): CandidateExtraction {
  const visibleText = extractVisibleText(text);
  const markers = maskToolIntentMarkers(visibleText);
  const intentSignalled = toolIntent || markers.found;

  const tagCandidates = extractTagCandidates(visibleText);
  const familyLists = extractFamilyCandidates(visibleText);
  // What a family call holds is not looked at again by the fallbacks: DeepSeek V3's arguments sit
  // in a ```json fence closed on the line of its end token, which would read as an unclosed block.
  // Markers and calls are blanked to spaces, so fences and offsets are the same in every text.
  const fallbackText = familyLists.length === 0 ? markers.masked : blankSpans(markers.masked, familyLists.flat());
  const fences = findFencedBlocks(fallbackText);
  const fallbackCandidates = mergeByPosition(extractFallbackCandidates({ text: fallbackText, fences }), extractFunctionaryCandidates(fallbackText));

  let candidates = tagCandidates;
  for (const list of familyLists) candidates = mergeByPosition(candidates, list);
  if (intentSignalled) candidates = mergeByPosition(candidates, fallbackCandidates);

  return {
    candidates: withoutNested(candidates),
    intentSignalled,
    fallbacksWithoutIntent: intentSignalled ? 0 : fallbackCandidates.length,
    visibleText,
    fenceOnlyStop: fences.endsInsideFence,
  };
}

/** Orders first by start, then the wider span first, so a container precedes what it holds. */
function comesBefore(left: Candidate, right: Candidate): boolean {
  return left.start < right.start || (left.start === right.start && left.end >= right.end);
}

/** Both lists are produced in order, so a linear merge replaces a sort of thousands of items. */
function mergeByPosition(first: Candidate[], second: Candidate[]): Candidate[] {
  if (second.length === 0) return first;
  if (first.length === 0) return second;
  const merged: Candidate[] = [];
  let firstIndex = 0;
  let secondIndex = 0;
  while (firstIndex < first.length || secondIndex < second.length) {
    const left = first[firstIndex];
    const right = second[secondIndex];
    if (right === undefined || (left !== undefined && comesBefore(left, right))) {
      if (left !== undefined) merged.push(left);
      firstIndex += 1;
    } else {
      merged.push(right);
      secondIndex += 1;
    }
  }
  return merged;
}

/** The text with each candidate's span replaced by spaces (the spans may overlap). */
function blankSpans(text: string, candidates: Candidate[]): string {
  const ordered = [...candidates].sort((left, right) => left.start - right.start);
  const pieces: string[] = [];
  let copiedUpTo = 0;
  for (const candidate of ordered) {
    if (candidate.end <= copiedUpTo) continue;
    const from = Math.max(candidate.start, copiedUpTo);
    pieces.push(text.slice(copiedUpTo, from), ' '.repeat(candidate.end - from));
    copiedUpTo = candidate.end;
  }
  pieces.push(text.slice(copiedUpTo));
  return pieces.join('');
}

/**
 * A candidate that starts inside another one's span is text within that candidate (a tag quoted
 * in the content of a strict-JSON write_file call), not a call of its own. Start, not end: the
 * open-ended family formats (`[TOOL_CALLS]…`) run to the next marker or the end of the text, so
 * one quoted inside a tag's JSON string may end after the tag does.
 */
function withoutNested(candidates: Candidate[]): Candidate[] {
  const isOrdered = candidates.every((candidate, index) => index === 0 || comesBefore(candidates[index - 1]!, candidate));
  const ordered = isOrdered ? candidates : [...candidates].sort((left, right) => left.start - right.start || right.end - left.end);
  const kept: Candidate[] = [];
  let furthestEnd = -1;
  for (const candidate of ordered) {
    if (candidate.start < furthestEnd) continue;
    kept.push(candidate);
    furthestEnd = candidate.end;
  }
  return kept;
}
