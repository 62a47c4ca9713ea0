// Phase 1 for the model families' chat-template formats that open with a special token, which
// is intent by itself (a model writes it only to call a tool): Mistral, Llama's python tag,
// DeepSeek, Granite, and Llama 3.1's `<function=…>` tag. Functionary's `>>>` is plain text and
// is a fallback instead (extract-functionary-candidates.ts). Each list comes in order; the
// caller orders the union.
import type { Candidate } from './candidate.js';
import { extractDeepSeekCandidates } from './extract-deepseek-candidates.js';
import { extractFunctionTagCandidates } from './extract-function-tag-candidates.js';
import { extractGraniteCandidates } from './extract-granite-candidates.js';
import { extractMistralCandidates } from './extract-mistral-candidates.js';
import { extractPythonTagCandidates } from './extract-python-tag-candidates.js';

export function extractFamilyCandidates(text: string): Candidate[][] {
  return [
    extractMistralCandidates(text),
    extractPythonTagCandidates(text),
    extractDeepSeekCandidates(text),
    extractGraniteCandidates(text),
    extractFunctionTagCandidates(text),
  ].filter((list) => list.length > 0);
}
