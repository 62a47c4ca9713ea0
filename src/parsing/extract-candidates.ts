// Phase 1: every candidate tool call in a model's text, as raw strings with spans. String
// scanning only; nothing here decides whether a call may run (that is validate-candidate.ts).
import type { Candidate } from './candidate.js';
import { extractFallbackCandidates } from './extract-fallback-candidates.js';
import { extractTagCandidates } from './extract-tag-candidates.js';
import { findFencedBlocks } from './fenced-blocks.js';
import { maskToolIntentMarkers } from './tool-intent-marker.js';
import { extractVisibleText } from './visible-text.js';

export interface CandidateExtraction {
  /** Tags always; fallbacks only with intent. Candidates nested in another are left out. */
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
  // Markers are blanked to spaces, so fences and offsets are the same in both texts.
  const fences = findFencedBlocks(markers.masked);

  const tagCandidates = extractTagCandidates(visibleText);
  const fallbackCandidates = extractFallbackCandidates({ text: markers.masked, fences });

  return {
    candidates: withoutNested(intentSignalled ? [...tagCandidates, ...fallbackCandidates] : tagCandidates),
    intentSignalled,
    fallbacksWithoutIntent: intentSignalled ? 0 : fallbackCandidates.length,
    visibleText,
    fenceOnlyStop: fences.endsInsideFence,
  };
}

/**
 * A candidate inside another one's span is text within that candidate (a tag quoted in the
 * content of a strict-JSON write_file call), not a call of its own.
 */
function withoutNested(candidates: Candidate[]): Candidate[] {
  const ordered = [...candidates].sort((left, right) => left.start - right.start || right.end - left.end);
  const kept: Candidate[] = [];
  let furthestEnd = -1;
  for (const candidate of ordered) {
    if (candidate.end <= furthestEnd) continue;
    kept.push(candidate);
    furthestEnd = candidate.end;
  }
  return kept;
}
