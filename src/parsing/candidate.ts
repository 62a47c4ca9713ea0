// What phase 1 hands to phase 2: raw text and where it was found, never a value that could run.
import { assertNever } from '../domain/assert-never.js';
import type { CandidateMode } from './parse-types.js';

export interface Candidate {
  mode: CandidateMode;
  /** The text phase 2 decodes: a tag's payload, a json/fenced object, or a bracket call list. */
  raw: string;
  /** The NAME written outside the JSON: `<tool name="NAME">`, `<function=NAME>`, Mistral's
   * `[TOOL_CALLS]NAME[ARGS]`, functionary's `>>>NAME`; null when the name is inside the payload. */
  declaredName: string | null;
  /** The span in the visible text, used to drop candidates nested inside another one. */
  start: number;
  end: number;
}

/** Fallback modes face the intent and size gates; tags and the model families' special tokens are
 * intent by themselves. Functionary's `>>>` is plain text a person may write, so it is a fallback. */
export function isFallbackMode(mode: CandidateMode): boolean {
  switch (mode) {
    case 'tag':
    case 'tool_use_tag':
    case 'tool_call_tag':
    case 'mistral':
    case 'python_tag':
    case 'deepseek':
    case 'granite':
    case 'function_tag':
      return false;
    case 'json':
    case 'fenced':
    case 'bracket':
    case 'functionary':
      return true;
    default:
      return assertNever(mode);
  }
}
