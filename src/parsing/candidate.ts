// What phase 1 hands to phase 2: raw text and where it was found, never a value that could run.
import { assertNever } from '../domain/profile.js';
import type { CandidateMode } from './parse-types.js';

export interface Candidate {
  mode: CandidateMode;
  /** The text phase 2 decodes: a tag's payload, a json/fenced object, or a bracket call list. */
  raw: string;
  /** The NAME of `<tool name="NAME">`; null for every other mode. */
  declaredName: string | null;
  /** The span in the visible text, used to drop candidates nested inside another one. */
  start: number;
  end: number;
}

/** Fallback modes face the intent and size gates; tags are intent by themselves. */
export function isFallbackMode(mode: CandidateMode): boolean {
  switch (mode) {
    case 'tag':
    case 'tool_use_tag':
    case 'tool_call_tag':
      return false;
    case 'json':
    case 'fenced':
    case 'bracket':
      return true;
    default:
      return assertNever(mode);
  }
}
